/** postbot's state: the {@link Store} interface, the memory store and the lowdb file store. */
export { createMemoryStore, type Retention, type Store } from "./store.ts";
export { openFileStore, STATE_FILE_NAME, STATE_FILE_VERSION, type FileStore, type FileStoreOptions } from "./file-store.ts";
