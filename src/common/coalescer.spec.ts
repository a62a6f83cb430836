import { Coalescer, type CoalescerOptions } from './coalescer.js';

/** An item of the tests: a name, and its weight for `maxWeight`. */
interface Item {
  name: string;
  weight: number;
}

type Outcomes = (string | Error)[];

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One call of the fake `run`: its key, its items' names, and the deferred the test settles it with. */
interface Call {
  key: string;
  names: string[];
  done: Deferred<Outcomes>;
  /** Answers every item with `<name>:<key>` (the outcome of that very item). */
  succeed(): void;
}

/** Lets every pending promise callback run (the batch's settling, the lane's next turn); no timer. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const item = (name: string, weight = 1): Item => ({ name, weight });

/** A promise's state after a flush, without waiting for it: 'pending', or its value, or 'rejected: <message>'. */
async function stateOf(promise: Promise<string>): Promise<string> {
  let state = 'pending';
  promise.then(
    (value) => (state = value),
    (error: Error) => (state = `rejected: ${error.message}`),
  );
  await flush();
  return state;
}

/** A coalescer whose `run` records each call and waits until the test settles it. */
function setup(options: Partial<CoalescerOptions<Item, string>> = {}) {
  const calls: Call[] = [];
  const retryAloneAsked: unknown[] = [];
  const coalescer = new Coalescer<Item, string>({
    inFlight: 2,
    maxItems: 100,
    maxWeight: 1_000,
    weigh: (i) => i.weight,
    run: (key, items) => {
      const done = deferred<Outcomes>();
      const names = items.map((i) => i.name);
      calls.push({ key, names, done, succeed: () => done.resolve(names.map((n) => `${n}:${key}`)) });
      return done.promise;
    },
    retryAlone: (error) => {
      retryAloneAsked.push(error);
      return true;
    },
    ...options,
  });
  const lanes = () => (coalescer as unknown as { lanes: Map<string, unknown> }).lanes;
  return { coalescer, calls, retryAloneAsked, lanes };
}

/** With inFlight 1: `blocker` runs, x, y and z wait behind it; then the blocker ends and x, y, z run as one batch (calls[1]). */
async function queueBehindBlocker(coalescer: Coalescer<Item, string>, calls: Call[]) {
  const blocker = coalescer.submit('p', item('blocker'));
  const queued = ['x', 'y', 'z'].map((n) => coalescer.submit('p', item(n)));
  calls[0].succeed();
  await flush();
  expect(calls[1].names).toEqual(['x', 'y', 'z']);
  return { blocker, queued };
}

describe('Coalescer', () => {
  it('runs a lone item at once, alone, and resolves it with its outcome', async () => {
    const { coalescer, calls, lanes } = setup();
    const result = coalescer.submit('a', item('x'));
    // The batch started within submit itself: nothing waited for a tick or a timer.
    expect(calls.map((c) => [c.key, c.names])).toEqual([['a', ['x']]]);
    calls[0].succeed();
    await expect(result).resolves.toBe('x:a');
    await flush();
    expect(lanes().size).toBe(0);
  });

  it('inFlight 2: two batches of one start at once; items arriving meanwhile leave together when one ends', async () => {
    const { coalescer, calls } = setup({ inFlight: 2 });
    const a = coalescer.submit('p', item('a'));
    const b = coalescer.submit('p', item('b'));
    expect(calls.map((c) => c.names)).toEqual([['a'], ['b']]);

    // Both run: these wait.
    const c = coalescer.submit('p', item('c'));
    const d = coalescer.submit('p', item('d'));
    const e = coalescer.submit('p', item('e'));
    await flush();
    expect(calls).toHaveLength(2);
    expect(await stateOf(c)).toBe('pending');

    // One ends: the three waiting items go as ONE batch, in their arrival order.
    calls[0].succeed();
    await flush();
    expect(calls.map((call) => call.names)).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    await expect(a).resolves.toBe('a:p');
    expect(await stateOf(b)).toBe('pending');

    // Two run again (b, and c-d-e): a new arrival waits for one of them.
    const f = coalescer.submit('p', item('f'));
    const g = coalescer.submit('p', item('g'));
    await flush();
    expect(calls).toHaveLength(3);

    // Each item of the batch gets its own outcome (not its neighbour's, not the batch's first).
    calls[2].done.resolve(['outcome of c', 'outcome of d', 'outcome of e']);
    await expect(c).resolves.toBe('outcome of c');
    await expect(d).resolves.toBe('outcome of d');
    await expect(e).resolves.toBe('outcome of e');
    await flush();
    expect(calls.map((call) => call.names)).toEqual([['a'], ['b'], ['c', 'd', 'e'], ['f', 'g']]);

    calls[1].done.resolve(['outcome of b']);
    calls[3].done.resolve(['outcome of f', 'outcome of g']);
    await expect(b).resolves.toBe('outcome of b');
    await expect(Promise.all([f, g])).resolves.toEqual(['outcome of f', 'outcome of g']);
    await flush();
    expect(calls).toHaveLength(4);
  });

  it('never runs more than inFlight batches of a key at once', async () => {
    const { coalescer, calls } = setup({ inFlight: 2, maxItems: 2 });
    const results = Array.from({ length: 9 }, (_, i) => coalescer.submit('p', item(`i${i}`)));
    let running = 0;
    let peak = 0;
    let settled = 0;
    while (settled < calls.length) {
      running = calls.length - settled;
      peak = Math.max(peak, running);
      calls[settled++].succeed();
      await flush();
    }
    expect(peak).toBe(2);
    expect(calls.map((c) => c.names)).toEqual([['i0'], ['i1'], ['i2', 'i3'], ['i4', 'i5'], ['i6', 'i7'], ['i8']]);
    await expect(Promise.all(results)).resolves.toEqual(Array.from({ length: 9 }, (_, i) => `i${i}:p`));
  });

  it('maxItems and maxWeight split the queue into several batches; an item heavier than maxWeight still goes, alone', async () => {
    const { coalescer, calls } = setup({ inFlight: 1, maxItems: 3, maxWeight: 10 });
    const blocker = coalescer.submit('p', item('blocker'));
    const queued = [
      item('q1'), item('q2'), item('q3'), // 3 items of 1: maxItems ends the batch
      item('q4'), item('q5', 9), // 1 + 9 = 10: exactly maxWeight still goes together…
      item('q6', 6), // …and 10 + 6 would not
      item('big', 25), // heavier than maxWeight on its own
      item('q7'),
    ];
    const results = queued.map((i) => coalescer.submit('p', i));
    expect(calls.map((c) => c.names)).toEqual([['blocker']]);
    for (let i = 0; i < 6; i++) {
      calls[i].succeed();
      await flush();
    }
    expect(calls.map((c) => c.names)).toEqual([['blocker'], ['q1', 'q2', 'q3'], ['q4', 'q5'], ['q6'], ['big'], ['q7']]);
    await expect(blocker).resolves.toBe('blocker:p');
    await expect(Promise.all(results)).resolves.toEqual(queued.map((i) => `${i.name}:p`));
  });

  it('an item heavier than maxWeight runs at once, alone, when nothing of its key runs', async () => {
    const { coalescer, calls } = setup({ inFlight: 1, maxWeight: 10 });
    const big = coalescer.submit('p', item('big', 11));
    expect(calls.map((c) => c.names)).toEqual([['big']]);
    calls[0].succeed();
    await expect(big).resolves.toBe('big:p');
  });

  it('keys are independent: a busy key does not delay another key\'s first item', async () => {
    const { coalescer, calls } = setup({ inFlight: 1 });
    const a1 = coalescer.submit('a', item('a1'));
    const a2 = coalescer.submit('a', item('a2'));
    const b1 = coalescer.submit('b', item('b1'));
    // b1 started at once, although key a has a batch running and one waiting.
    expect(calls.map((c) => [c.key, c.names])).toEqual([['a', ['a1']], ['b', ['b1']]]);
    calls[1].succeed();
    await expect(b1).resolves.toBe('b1:b');
    expect(await stateOf(a1)).toBe('pending');
    // Key b's end does not start a's waiting item: only the end of a's batch does.
    expect(calls).toHaveLength(2);
    calls[0].succeed();
    await flush();
    expect(calls.map((c) => [c.key, c.names])).toEqual([['a', ['a1']], ['b', ['b1']], ['a', ['a2']]]);
    calls[2].succeed();
    await expect(Promise.all([a1, a2])).resolves.toEqual(['a1:a', 'a2:a']);
  });

  it('an Error outcome rejects only its own item', async () => {
    const { coalescer, calls, retryAloneAsked } = setup({ inFlight: 1 });
    const { blocker, queued: [x, y, z] } = await queueBehindBlocker(coalescer, calls);
    const yError = new Error('y is wrong');
    calls[1].done.resolve(['X', yError, 'Z']);
    await expect(x).resolves.toBe('X');
    await expect(y).rejects.toBe(yError);
    await expect(z).resolves.toBe('Z');
    await expect(blocker).resolves.toBe('blocker:p');
    // An item's own failure is no batch failure: nothing runs again.
    await flush();
    expect(calls).toHaveLength(2);
    expect(retryAloneAsked).toEqual([]);
  });

  it('a failed batch with retryAlone true: each item runs again alone and is settled by its own outcome', async () => {
    const { coalescer, calls, retryAloneAsked } = setup({ inFlight: 1 });
    const { blocker, queued: [x, y, z] } = await queueBehindBlocker(coalescer, calls);

    const batchError = new Error('the statement failed');
    calls[1].done.reject(batchError);
    await flush();
    expect(retryAloneAsked).toEqual([batchError]);
    // Every item again, each alone, under the same key (at once: they are the failed batch's turn).
    expect(calls.slice(2).map((c) => [c.key, c.names])).toEqual([['p', ['x']], ['p', ['y']], ['p', ['z']]]);
    expect(await stateOf(x)).toBe('pending');

    const yError = new Error('y alone failed');
    calls[3].done.reject(yError);
    calls[2].succeed();
    calls[4].succeed();
    await expect(x).resolves.toBe('x:p');
    await expect(y).rejects.toBe(yError);
    await expect(z).resolves.toBe('z:p');
    await expect(blocker).resolves.toBe('blocker:p');
    await flush();
    expect(calls).toHaveLength(5);
    // A failure of an item run alone is that item's: retryAlone was asked about the batch only.
    expect(retryAloneAsked).toEqual([batchError]);
  });

  it('an item run again alone may also fail by an Error outcome', async () => {
    const { coalescer, calls } = setup({ inFlight: 1 });
    coalescer.submit('p', item('blocker'));
    const [x, y] = ['x', 'y'].map((n) => coalescer.submit('p', item(n)));
    calls[0].succeed();
    await flush();
    calls[1].done.reject(new Error('batch'));
    await flush();
    const xError = new Error('x returned no row');
    calls[2].done.resolve([xError]);
    calls[3].succeed();
    await expect(x).rejects.toBe(xError);
    await expect(y).resolves.toBe('y:p');
  });

  it('a failed batch with retryAlone false: every item rejects with that error, and nothing runs again', async () => {
    const { coalescer, calls, retryAloneAsked } = setup({
      inFlight: 1,
      retryAlone: (error) => {
        retryAloneAsked.push(error);
        return false;
      },
    });
    const { blocker, queued } = await queueBehindBlocker(coalescer, calls);
    const unavailable = new Error('database unavailable');
    calls[1].done.reject(unavailable);
    for (const result of queued) await expect(result).rejects.toBe(unavailable);
    await expect(blocker).resolves.toBe('blocker:p');
    await flush();
    expect(calls).toHaveLength(2);
    expect(retryAloneAsked).toEqual([unavailable]);
  });

  it('a failed batch of one item rejects with that error and does not run again, even when retryAlone would allow it', async () => {
    const { coalescer, calls } = setup();
    const lone = coalescer.submit('p', item('lone'));
    const failure = new Error('lone failed');
    calls[0].done.reject(failure);
    await expect(lone).rejects.toBe(failure);
    await flush();
    expect(calls).toHaveLength(1);
  });

  it('a run that throws synchronously fails its batch like a rejected one', async () => {
    const failure = new Error('thrown');
    const coalescer = new Coalescer<Item, string>({
      inFlight: 1,
      maxItems: 10,
      maxWeight: 10,
      weigh: (i) => i.weight,
      run: () => {
        throw failure;
      },
      retryAlone: () => false,
    });
    await expect(coalescer.submit('p', item('x'))).rejects.toBe(failure);
    await flush();
    expect((coalescer as unknown as { lanes: Map<string, unknown> }).lanes.size).toBe(0);
  });

  it('after everything settled (successes and failures), the lane is gone and a new item runs at once', async () => {
    const { coalescer, calls, lanes } = setup({ inFlight: 1 });
    const first = coalescer.submit('p', item('first'));
    const queued = ['x', 'y'].map((n) => coalescer.submit('p', item(n)));
    const other = coalescer.submit('q', item('other'));
    calls[0].succeed();
    await flush();
    calls[1].succeed(); // q
    calls[2].done.reject(new Error('batch')); // x, y
    await flush();
    calls[3].done.reject(new Error('x alone'));
    calls[4].succeed();
    await expect(first).resolves.toBe('first:p');
    await expect(other).resolves.toBe('other:q');
    await expect(queued[0]).rejects.toThrow('x alone');
    await expect(queued[1]).resolves.toBe('y:p');
    await flush();
    expect(lanes().size).toBe(0);

    const count = calls.length;
    const again = coalescer.submit('p', item('again'));
    expect(calls.slice(count).map((c) => [c.key, c.names])).toEqual([['p', ['again']]]);
    calls[count].succeed();
    await expect(again).resolves.toBe('again:p');
    await flush();
    expect(lanes().size).toBe(0);
  });

  it('a lane emptied of running batches takes inFlight new ones at once again', async () => {
    const { coalescer, calls } = setup({ inFlight: 2 });
    const round = async (names: string[]) => {
      const start = calls.length;
      const results = names.map((n) => coalescer.submit('p', item(n)));
      expect(calls.slice(start).map((c) => c.names)).toEqual([[names[0]], [names[1]]]);
      for (const call of calls.slice(start)) call.succeed();
      await flush();
      for (const call of calls.slice(start + 2)) call.succeed();
      return Promise.all(results);
    };
    await expect(round(['a', 'b', 'c'])).resolves.toEqual(['a:p', 'b:p', 'c:p']);
    await flush();
    await expect(round(['d', 'e', 'f'])).resolves.toEqual(['d:p', 'e:p', 'f:p']);
  });

  it('refuses an item that waited past maxWaitMs when a batch is taken, and runs the others', async () => {
    const busy = new Error('busy');
    const { coalescer, calls, lanes } = setup({ inFlight: 1, maxWaitMs: 20, expired: () => busy });
    const blocker = coalescer.submit('p', item('blocker'));
    const old = coalescer.submit('p', item('old'));
    await new Promise((resolve) => setTimeout(resolve, 40));
    const fresh = coalescer.submit('p', item('fresh'));
    calls[0].succeed();
    await expect(blocker).resolves.toBe('blocker:p');
    await expect(old).rejects.toBe(busy);
    await flush();
    expect(calls.map((c) => c.names)).toEqual([['blocker'], ['fresh']]);
    calls[1].succeed();
    await expect(fresh).resolves.toBe('fresh:p');
    await flush();
    expect(lanes().size).toBe(0);
  });

  it('forgets a key whose last waiting item expired', async () => {
    const busy = new Error('busy');
    const { coalescer, calls, lanes } = setup({ inFlight: 1, maxWaitMs: 20, expired: () => busy });
    const blocker = coalescer.submit('p', item('blocker'));
    const old = coalescer.submit('p', item('old'));
    await new Promise((resolve) => setTimeout(resolve, 40));
    calls[0].succeed();
    await expect(blocker).resolves.toBe('blocker:p');
    await expect(old).rejects.toBe(busy);
    await flush();
    expect(lanes().size).toBe(0);
  });
});
