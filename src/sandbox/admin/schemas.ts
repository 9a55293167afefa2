/**
 * The admin API's request bodies, validated with zod so a bad body is refused with a 400
 * that names the field and says what it must be.
 */
import { z } from "zod";
import { PLANS } from "../../limits/types.ts";
import { invalidRequest, type ApiProblem } from "../problems.ts";

const id = z.string().regex(/^\d{1,19}$/, "must be a decimal id");

/**
 * The callback URLs registered on an app (spec part 5 rule 2): any scheme, since the spec
 * allows custom schemes for desktop and mobile apps, but each must be a URL.
 */
const callbackUrls = z
  .array(
    z
      .string()
      .min(1)
      .max(2000)
      .regex(/^[a-z][a-z0-9+.-]*:\S+$/i, "must be a URL (https://app.example/callback, or a custom scheme)"),
  )
  .max(50);

export const newAppSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  plan: z.enum(PLANS).optional(),
  callback_urls: callbackUrls.optional(),
  academic: z.boolean().optional(),
  allow_sign_in: z.boolean().optional(),
  owner_id: id.optional(),
});

/**
 * `PATCH /_sandbox/apps`: the app's settings a developer changes on the real service's
 * portal. The app is named by its `consumer_key`; fields left out keep their value, and
 * `callback_urls` replaces the whole list.
 */
export const appChangesSchema = z.strictObject({
  consumer_key: z.string().min(1),
  name: z.string().min(1).max(100).optional(),
  callback_urls: callbackUrls.optional(),
  allow_sign_in: z.boolean().optional(),
});

export const newTokenSchema = z.strictObject({
  consumer_key: z.string().min(1),
  user_id: id,
  access: z.enum(["read", "write"]).optional(),
});

/** The platform's part of `POST /_sandbox/users`; the rest of the body is the world's. */
export const passwordSchema = z.string().min(1).max(200);

export const clockSchema = z.strictObject({
  advance_ms: z
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3_600_000),
});

const faultBase = {
  route: z.string().regex(/^[A-Z]+ \/\S*$/, 'must be a route template such as "GET /2/posts/:id"'),
  count: z.number().int().min(1).max(1_000_000).default(1),
};

export const faultSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    ...faultBase,
    kind: z.literal("error"),
    status: z.number().int().min(100).max(599),
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  z.strictObject({
    ...faultBase,
    kind: z.literal("delay"),
    delay_ms: z
      .number()
      .int()
      .min(0)
      .max(24 * 3_600_000),
  }),
  z.strictObject({ ...faultBase, kind: z.literal("reset") }),
  z.strictObject({ ...faultBase, kind: z.literal("drop"), after_messages: z.number().int().min(0).default(0) }),
  z.strictObject({ ...faultBase, kind: z.literal("stall"), after_messages: z.number().int().min(0).default(0) }),
]);

/**
 * Parses a body with a schema, or throws a 400 naming each bad field
 * (`plan: Invalid option: expected one of "pro"|"basic"|"free"`).
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  throw zodProblem(result.error);
}

export function zodProblem(error: z.ZodError): ApiProblem {
  const parameters: Record<string, string[]> = {};
  const lines = error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "(body)";
    parameters[path] = [];
    return `${path}: ${issue.message}`;
  });
  return invalidRequest(lines.join("; "), parameters);
}
