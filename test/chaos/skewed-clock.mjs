// Preloaded into a `bot start` of the chaos campaign (node --import): the process's wall
// clock reads CHAOS_CLOCK_OFFSET_MS off the machine's, Date.now() and new Date() alike, as
// libfaketime makes a process read it; timers and the monotonic clock are untouched.
const offset = Number(process.env.CHAOS_CLOCK_OFFSET_MS ?? 0);
if (offset) {
  const RealDate = Date;
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = SkewedDate;
}
