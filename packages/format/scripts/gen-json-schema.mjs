// Placeholder replaced by the schema generator (see src/schema.ts).
