/**
 * JSON request bodies checked against a zod schema, with every problem reported the way
 * the service reports one: a 400 invalid-request whose message names the field (as a JSON
 * path, `$.reply.in_reply_to_post_id`) and what is wrong with it.
 */
import { z } from "zod";
import { invalidRequest } from "../problems.ts";

/** An id in a body (`post_id`, `target_user_id`, ...). */
export const zId = z.string().regex(/^[0-9]{1,19}$/, "must be a string of 1 to 19 digits");

function describe(issue: z.core.$ZodIssue): string {
  const path = "$" + issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map(
        (k) =>
          `${path === "$" ? "$" : path}.${k}: is not defined in the schema and the schema does not allow additional properties`,
      )
      .join("; ");
  }
  if (issue.code === "invalid_type" && issue.message.includes("received undefined"))
    return `${path}: is missing but it is required`;
  return `${path}: ${issue.message}`;
}

/**
 * Parses a request body. A missing body, or one of the wrong shape, is a 400 that lists
 * every problem found.
 *
 * @example
 * ```ts
 * const { post_id } = parseBody(z.object({ post_id: zId }).strict(), req.body);
 * ```
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined) throw invalidRequest("This request needs a JSON body (Content-Type: application/json)");
  const result = schema.safeParse(body);
  if (!result.success) throw invalidRequest(result.error.issues.map(describe).join("; "));
  return result.data;
}
