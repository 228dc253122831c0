// The Python glue between the harness (runner/python/harness.py) and the JavaScript bridge
// (bridge.ts), run once in the interpreter before the snapshot is taken (main.ts).

import { SHARED, SHARED_SLOTS } from './bridge.ts';

/** Where the harness's modules live in Pyodide's file system. */
export const PY_DIR = '/rd';

// Glue between the harness and the JS bridge: converts JS arrays to the tuples the harness expects.
export const GLUE = `
import sys
from array import array
sys.path.insert(0, '${PY_DIR}')
import harness
import legs

# The bridge's shared array (runner/child/bridge.ts, SHARED, whose numbers are written in here): the
# state, the fills not yet taken, an order's fields and the working orders cross as int64s in memory,
# not as call arguments or answers. The state is slots 0-6, the order's fields 10 slots from _ORDER.
_FILLS_FROM, _FILLS_HELD, _FILLS_TAKEN = ${SHARED.fillsFrom}, ${SHARED.fillsHeld}, ${SHARED.fillsTaken}
_FILLS, _WORKING, _WORKING_MAX = ${SHARED.fills}, ${SHARED.working}, ${SHARED.workingMax}
_SLOTS = ${SHARED_SLOTS}
_NONE = -(1 << 63)

class _Bridge:
    __slots__ = ('_j', '_a', '_advance', '_fills', '_working', '_working_text', '_place', '_cancel', '_close', '_modify', '_lg')
    legs = property(lambda self: self._lg)
    def __init__(self, j):
        self._j = j
        self._lg = None if j.legs is None else legs.JsLegs(j.legs)  # the other contracts (runner/child/leg-bridge.ts)
        a = self._a = array('q', bytes(8 * _SLOTS))
        j.bind(a.buffer_info()[0], _SLOTS)
        self._advance = j.advanceShared
        self._fills = j.fillsText
        self._working = j.workingShared
        self._working_text = j.workingText
        self._place = j.placeShared
        self._cancel = j.cancelShared
        self._close = j.closeShared
        self._modify = j.modifyShared
    def advance(self, k):
        self._advance(k)
        a = self._a
        return (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    def place(self, k, ty, side, size, lim, stp, sl, tp, trail, sl_type):
        a = self._a
        a[${SHARED.order}] = k
        a[${SHARED.order + 1}] = ty
        a[${SHARED.order + 2}] = side
        a[${SHARED.order + 3}] = size
        a[${SHARED.order + 4}] = _NONE if lim is None else lim
        a[${SHARED.order + 5}] = _NONE if stp is None else stp
        a[${SHARED.order + 6}] = _NONE if sl is None else sl
        a[${SHARED.order + 7}] = _NONE if tp is None else tp
        a[${SHARED.order + 8}] = _NONE if trail is None else trail
        a[${SHARED.order + 9}] = _NONE if sl_type is None else sl_type
        oid = self._place()
        return (oid, '' if oid else self._j.lastReason)
    def modify(self, k, oid, size, lim, stp, trail):
        return self._modify(k, oid, size, lim, stp, trail)
    def cancel(self, k, oid):
        return bool(self._cancel(k, oid))
    def close(self, k, size):
        oid = self._close(k, size)
        return (oid, '' if oid else self._j.lastReason)
    def state(self):
        a = self._a
        return (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    def fills(self, i):
        # Fills [i, fill count): from the shared array when it holds them all, else as text.
        a = self._a
        n = a[5] - i
        if n <= 0:
            return []
        a[_FILLS_TAKEN] = i + n
        if a[_FILLS_FROM] == i and a[_FILLS_HELD] >= n:
            return [tuple(a[b:b + 8]) for b in range(_FILLS, _FILLS + 8 * n, 8)]
        t = self._fills(i)
        return [tuple(map(int, f.split(','))) for f in t.split(';')] if t else []
    def working(self):
        n = self._working()
        if n > _WORKING_MAX:
            t = self._working_text()
            return [tuple(None if v == '' else int(v) for v in o.split(',')) for o in t.split(';')] if t else []
        a = self._a
        return [tuple(None if v == _NONE else v for v in a[b:b + 7]) for b in range(_WORKING, _WORKING + 7 * n, 7)]

def _cols(t, e, o, h, l, c, v):
    return {'t': t.to_py().tolist(), 'e': e.to_py().tolist(), 'o': o.to_py().tolist(), 'h': h.to_py().tolist(),
            'l': l.to_py().tolist(), 'c': c.to_py().tolist(), 'v': v.to_py().tolist()}

def _rd_start(code, params, meta, jbridge):
    return harness.start(code, params.to_py(), meta.to_py(), _Bridge(jbridge))

_src = None  # the current batch's columns (Series layout)
_ZD = array('d', [0.0])
_ZQ = array('q', [0])

def _rd_alloc(n):
    # The batch's seven columns (four 'd' prices in units, then volume, time and end as 'q'), zeroed,
    # n long; JS writes the values straight into their buffers (loadBatch), so no copy is made here.
    global _src
    _src = (_ZD * n, _ZD * n, _ZD * n, _ZD * n, _ZQ * n, _ZQ * n, _ZQ * n)
    return ','.join([str(c.buffer_info()[0]) for c in _src])

def _rd_batch(base, off, m, ctx, legs=None):
    # Bars [off, off + m) of the loaded batch, as bars base... of the run; legs: the other
    # contracts' bars of the batch (a run over several instruments), with its first slice.
    src = _src if off == 0 and m == len(_src[0]) else tuple(c[off:off + m] for c in _src)
    cx = {x[0]: _cols(*list(x)[1:]) for x in ctx} if ctx is not None and len(ctx) else None
    lg = [_cols(*list(x)) for x in legs] if legs is not None else None
    return harness.run_columns(base, src, cx, lg)

def _rd_finish():
    return harness.finish()

def _rd_logs():
    return harness.take_logs()

def _rd_set_emit(fn):
    harness.set_emit(fn)

def _rd_prefault(mb):
    # Touches mb MB of fresh memory and frees it: the heap keeps the pages, mapped, for the run to
    # grow into (runner/limits.ts, PREFAULT_MB).
    block = _ZQ * (mb * 131072)
    del block

def _rd_touch(o):
    # A JavaScript object's method, taken and dropped: how the shared child finds Pyodide's table of
    # deduplicated references (fresh.ts).
    return o.probe is not None

def _rd_done():
    # Bars that reached the strategy (the one whose on_bar raised included).
    return len(harness._rt.series)
`;

