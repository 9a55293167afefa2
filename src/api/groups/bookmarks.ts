/**
 * Bookmarks (spec 4.1 "Reposts, likes, bookmarks"): PKCE only, as the spec's one scoped mark
 * says. The spec lists the lookup and the add both under `/2/users/:id/bookmarks` and under
 * `/2/posts/:id/bookmarks`; both forms are here, with `:id` the bookmarking user in each.
 */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { PagingQuery, PostFieldsQuery } from "../params.ts";

export function bookmarksGroup(c: Caller) {
  return {
    /** `POST /2/users/:id/bookmarks`. */
    add: (userId: string, postId: string, options?: CallOptions) =>
      c.request("POST /2/users/:id/bookmarks", { params: { id: userId }, body: { post_id: postId } }, options),
    /** `POST /2/posts/:id/bookmarks`: the spec's other form of adding a bookmark. */
    addByPostsPath: (id: string, postId: string, options?: CallOptions) =>
      c.request("POST /2/posts/:id/bookmarks", { params: { id }, body: { post_id: postId } }, options),
    /** `DELETE /2/users/:id/bookmarks/:post_id`. */
    remove: (userId: string, postId: string, options?: CallOptions) =>
      c.request("DELETE /2/users/:id/bookmarks/:post_id", { params: { id: userId, post_id: postId } }, options),
    /** `GET /2/users/:id/bookmarks`. */
    list: paged(
      "GET /2/users/:id/bookmarks",
      1,
      (userId: string, query?: PostFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/bookmarks", { params: { id: userId }, query }, options),
    ),
    /** `GET /2/posts/:id/bookmarks`: the spec's other form of the bookmark lookup. */
    listByPostsPath: paged(
      "GET /2/posts/:id/bookmarks",
      1,
      (id: string, query?: PostFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/posts/:id/bookmarks", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/bookmarks/folders`. */
    folders: paged(
      "GET /2/users/:id/bookmarks/folders",
      1,
      (userId: string, query?: PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/bookmarks/folders", { params: { id: userId }, query }, options),
    ),
    /** `GET /2/users/:id/bookmarks/folders/:folder_id`: the ids of the posts in a folder. */
    folder: paged(
      "GET /2/users/:id/bookmarks/folders/:folder_id",
      2,
      (userId: string, folderId: string, query?: PagingQuery, options?: CallOptions) =>
        c.request(
          "GET /2/users/:id/bookmarks/folders/:folder_id",
          { params: { id: userId, folder_id: folderId }, query },
          options,
        ),
    ),
  };
}
