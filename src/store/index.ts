/** postbot's state: the {@link Store} interface, the memory store and the file store (a directory of lowdb files). */
export { createMemoryStore, type Retention, type Store } from "./store.ts";
export { credentialsPath, hasState, openFileStore, type FileStore, type FileStoreOptions } from "./file-store.ts";
export { SINGLE_STATE_FILE_NAME, STATE_DIR_NAME } from "./state-dir.ts";
export { STATE_FILE_VERSION } from "./state-file.ts";
export { StateNotSavedError } from "./write-error.ts";
