/**
 * The obscenity package (the swear-word and slur dataset, its pattern language and its
 * look-alike tables), loaded when the classifier first needs it. Importing it builds its
 * English dataset, about a tenth of the time of importing postbot, which every plugin's
 * `import { definePlugin } from "postbot"` would pay, moderating or not. Only its types may
 * be imported statically (`import type`); its values are read through {@link obscenity}.
 */
import { lazyPackage } from "../lazy-package.ts";

/** The obscenity package, required on the first call. */
export const obscenity = lazyPackage<typeof import("obscenity")>("obscenity");
