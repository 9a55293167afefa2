/**
 * A post's entities (mentions, hashtags, cashtags, links), parsed once per post object and
 * kept with it: creating a post guesses its language from them, the post index files its
 * mentions, the stream rules and the rendering read them, and each of these parsing the text
 * again was most of what a new post allocated.
 */
import { parseEntities } from "../../api/text/entities.ts";
import type { PostEntities } from "../../api/types.ts";
import type { SandboxPost } from "../model/index.ts";

const cache = new WeakMap<SandboxPost, PostEntities>();

/** A post's entities (parsed once per post object, then kept with it). */
export function postEntities(post: SandboxPost): PostEntities {
  let e = cache.get(post);
  if (!e) cache.set(post, (e = parseEntities(post.text)));
  return e;
}

/**
 * A post's entities when they were parsed already, else parsed for this once and not kept:
 * rebuilding the post index of a world loaded from a file reads every post, and need not keep
 * every post's entities for it.
 */
export const entitiesOf = (post: SandboxPost): PostEntities => cache.get(post) ?? parseEntities(post.text);

/** Keeps the entities a new post's creator parsed from its text (createPost). */
export function keepEntities(post: SandboxPost, entities: PostEntities): void {
  cache.set(post, entities);
}
