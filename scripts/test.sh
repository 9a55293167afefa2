#!/bin/sh
# `npm test`: the format check, then the type check and the vitest suite side by side. The
# suite spends much of its time waiting for the processes its tests start, time the type
# check (about 20 s of one core) can use; run one after the other, the two took 20 s longer.
# The type check's output is printed after the suite's; either failing fails `npm test`.
# Arguments go to vitest (`npm test -- test/NAME.test.ts`).
npm run --silent format:check || exit 1
typecheck_out=$(mktemp)
trap 'rm -f "$typecheck_out"' EXIT
npx tsc --noEmit >"$typecheck_out" 2>&1 &
typecheck=$!
npx vitest run "$@"
tests=$?
wait "$typecheck"
typed=$?
cat "$typecheck_out"
if [ "$typed" -ne 0 ]; then
  echo "the type check failed (above; npm run typecheck runs it alone)" >&2
else
  echo "type check: no errors"
fi
[ "$tests" -eq 0 ] && [ "$typed" -eq 0 ]
