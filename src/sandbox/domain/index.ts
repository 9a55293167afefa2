/**
 * The world's operations, for callers outside the HTTP handlers (the platform's in-process
 * admin, the demo's crowd, tests): the same functions the endpoints use, so a post made
 * here obeys every rule a post made through `POST /2/posts` does.
 */
export { createUser, userById, userByUsername, type NewUser } from "./users.ts";
export { createPost, deletePost, livePostsBy, repost, type NewPost } from "./posts.ts";
export { follow, unfollow, acceptFollowRequest, mute, unmute, block, unblock } from "./relations.ts";
export { like, unlike, bookmark, unbookmark } from "./engagement.ts";
export { sendToParticipant, sendToConversation, createGroup } from "./dms.ts";
export { parseQuery, matches, QueryError, type Query } from "./query.ts";
export { parseEntities } from "../../api/text/entities.ts";
export { weightedLength, MAX_POST_LENGTH } from "../../api/text/post-length.ts";
export { inSample } from "./streams.ts";
export { createList, addMember, followList, pinList } from "./lists.ts";
export { createSpace, spaceState, type NewSpace } from "./spaces.ts";
export { createCommunity, type NewCommunity } from "./communities.ts";
export { createFolder } from "./bookmark-folders.ts";
