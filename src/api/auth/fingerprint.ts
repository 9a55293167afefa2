/**
 * A short, stable, non-secret name for a secret value: how logs, budgets and the state store
 * tell apps and accounts apart without ever holding their keys or tokens.
 */
import { createHash } from "node:crypto";

/** A short, stable, non-secret name for a secret value (12 hex digits of its SHA-256). */
export const fingerprint = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 12);
