// @ts-check
// A replayed line's bookkeeping, without the page: which position a jump starts from, and the log up to a
// position (the events told, one line for each stretch jumped over).

/** The nearest position before `i` already made (the deal, position 0, always is). */
export function nearestMade(states, i) {
  let j = i - 1;
  while (j > 0 && states[j] === undefined) j--;
  return j;
}

/** The replay's log up to position `i`: the events told, and for the stretches jumped over, one line. */
export function replayLog(R, i) {
  const out = [...R.events[0]];
  for (let k = 1; k <= i; k++) {
    if (R.events[k]) out.push(...R.events[k]);
    else if (k === 1 || R.events[k - 1]) {
      let last = k;
      while (last < i && !R.events[last + 1]) last++;
      out.push({ type: "jumped", first: k, last });
    }
  }
  return out;
}
