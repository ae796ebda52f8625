/**
 * A corpus of planted fake credentials of common kinds (cloud keys, tokens of code hosts and
 * chat services, private key blocks, API keys of LLM providers, connection strings) and of
 * decoys that only look like them (UUIDs, hashes, the word "password" alone, an example key),
 * for the tests of secret detection and redaction. Every value is made up: none was ever a
 * credential. Each planted value sits in the text a session would hold it in.
 */

/** A planted credential: the kind the shared detector names it by, the secret, and its text. */
export interface PlantedSecret {
  kind: string;
  secret: string;
  /** The text around it, as a tool output or a message would hold it. */
  text: string;
}

const PRIVATE_KEY_BODY = [
  "MIIEowIBAAKCAQEAu7QnPq2mV9xZ4wH8kL3sT6yR1fJ0cN5bA7dG2eK9iM4oP8qU",
  "3vW6xY1zB5nC0mD7fE2gH9jI4kL6oP1qR8sT3uV5wX0yZ2aB7cD9eF4gH6iJ1kL3",
  "mN5oP8qR0sT2uV4wX6yZ9aB1cD3eF5gH7iJ0kL2mN4oP6qR8sT1uV3wX5yZ7aB9c",
  "D2eF4gH6iJ8kL0mN3oP5qR7sT9uV1wX4yZ6aB8cD0eF3gH5iJ7kL9mN2oP4qR6sT",
].join("\n");

const secret = (kind: string, value: string, text: (v: string) => string): PlantedSecret => ({
  kind,
  secret: value,
  text: text(value),
});

export const PLANTED_SECRETS: readonly PlantedSecret[] = [
  secret("aws", "AKIAZ7VRSQ4TMWPE3XKD", (v) => `[default]\naws_access_key_id = ${v}\nregion = eu-west-1`),
  secret(
    "aws",
    "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",
    (v) => `export AWS_SECRET_ACCESS_KEY=${v}\nexport AWS_REGION=us-east-1`,
  ),
  secret(
    "github",
    "ghp_R8vXq2mLp9TzW4nK7bY3cF6hJ1sD5aG0eQuI",
    (v) => `git remote set-url origin https://x:${v}@github.com/o/r`,
  ),
  secret("gitlab", "glpat-a1B2c3D4e5F6g7H8i9J0", (v) => `GITLAB_TOKEN: ${v}`),
  secret(
    "slack",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    (v) => `{"slack": {"bot_token": "${v}"}}`,
  ),
  secret(
    "slack",
    "https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/abcdefghijklmnopqrstuvwx",
    (v) => `curl -X POST ${v} -d '{"text":"deployed"}'`,
  ),
  secret(
    "privatekey",
    `-----BEGIN RSA PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END RSA PRIVATE KEY-----`,
    (v) => `$ cat ~/.ssh/id_rsa\n${v}\n`,
  ),
  secret(
    "openai",
    "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",
    (v) => `OPENAI_API_KEY="${v}" python run.py`,
  ),
  secret(
    "anthropic",
    "sk-ant-api03-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901Vwx234Yz5Abc123Def456Ghi789Jkl012Mno345Pqr678-AbcdefAA",
    (v) => `I set ANTHROPIC_API_KEY to ${v} in the shell.`,
  ),
  secret("huggingface", "hf_AbcDefGhiJklMnoPqrStuVwxYzAbcDefGh", (v) => `huggingface-cli login --token ${v}`),
  secret("npm", "npm_Abc123Def456Ghi789Jkl012Mno345Pqr678", (v) => `//registry.npmjs.org/:_authToken=${v}`),
  secret("stripe", "sk_live_Abc123Def456Ghi789Jkl012Mno", (v) => `stripe.api_key = "${v}"`),
  secret(
    "database-connection-string",
    "postgres://admin:Hunter2Secret@db.internal:5432/app",
    (v) => `DATABASE_URL=${v}`,
  ),
];

/** Decoys: text that must not be taken for a secret. */
export const SECRET_DECOYS: readonly string[] = [
  "request id 123e4567-e89b-12d3-a456-426614174000 finished",
  "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
  "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)",
  "md5 d41d8cd98f00b204e9800998ecf8427e",
  "The password is required and must be rotated every 90 days.",
  "Enter your password:",
  "Set the token in the settings page, never in the code.",
  "Use AKIAIOSFODNN7EXAMPLE as in the AWS documentation.",
];
