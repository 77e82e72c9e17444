"""The independent oracle: the three ops, naive and row-major over updates.

Every update is applied one at a time in row-major update order, in the data's own type (see
numeric); `none` keeps the last writer. Indices must already be in range.
"""
from scatterctl_spec import identity

from .numeric import combine, f_div_count, is_float
from .shapes import ndindex, prod, ravel


def reduce_into(data, dt, targets, red, use_init):
    """targets: (flat output offset, update value) in row-major update order."""
    out = list(data)
    if red == "none":
        for t, u in targets:
            out[t] = u
        return out
    acc, count = {}, {}
    for t, u in targets:
        if t not in acc:
            acc[t] = data[t] if use_init else identity(red, dt)
            count[t] = 1 if use_init else 0
        acc[t] = combine("add" if red == "mean" else red, dt, acc[t], u)
        count[t] += 1
    for t, v in acc.items():
        if red == "mean":
            v = f_div_count(v, count[t], dt) if is_float(dt) else v // count[t]
        out[t] = v
    return out


def targets_elements(dshape, idx, ishape, axis):
    """(flat output offset, flat update index) for each update, in row-major update order."""
    axis = axis + len(dshape) if axis < 0 else axis
    s = dshape[axis]
    out = []
    for flat, c in enumerate(ndindex(ishape)):
        i = idx[flat] + s if idx[flat] < 0 else idx[flat]
        assert 0 <= i < s
        c = list(c)
        c[axis] = i
        out.append((ravel(c, dshape), flat))
    return out


def targets_nd(dshape, idx, ishape):
    k = ishape[-1]
    slice_size = prod(dshape[k:])
    out = []
    for i in range(prod(ishape[:-1])):
        tup = []
        for j in range(k):
            v = idx[i * k + j]
            v = v + dshape[j] if v < 0 else v
            assert 0 <= v < dshape[j]
            tup.append(v)
        base = ravel(tup, dshape[:k]) * slice_size
        out.extend((base + e, i * slice_size + e) for e in range(slice_size))
    return out


def targets_update(dshape, idx, ishape, axis):
    axis = axis + len(dshape) if axis < 0 else axis
    outer, s, inner = prod(dshape[:axis]), dshape[axis], prod(dshape[axis + 1:])
    m = prod(ishape)
    out = []
    for o in range(outer):
        for j in range(m):
            assert 0 <= idx[j] < s
            out.extend((((o * s) + idx[j]) * inner + e, (o * m + j) * inner + e)
                       for e in range(inner))
    return sorted(out, key=lambda t: t[1])


def targets_tensor(dshape, idx, ushape, axis, mode):
    """ONNX TensorScatter's pseudocode: update[p, s, ...] -> present[p, write_indices[p[0]] + s (mod S), ...]."""
    axis = axis + len(dshape) if axis < 0 else axis
    out = []
    for u, coord in enumerate(ndindex(ushape)):
        pos = idx[coord[0]] + coord[axis]
        if mode == "circular":
            pos %= dshape[axis]
        assert 0 <= pos < dshape[axis]
        out.append((ravel(coord[:axis] + (pos,) + coord[axis + 1:], dshape), u))
    return out


def targets_of(op, axis, dshape, idx, ishape):
    if op == "scatter_elements":
        return targets_elements(dshape, idx, ishape, axis)
    if op == "scatter_nd":
        return targets_nd(dshape, idx, ishape)
    return targets_update(dshape, idx, ishape, axis)


def run_case(op, red, axis, use_init, data, idx, upd, mode="linear"):
    """data/idx/upd: (dtype, shape, flat values). Returns the output's flat values."""
    dt, dshape, dv = data
    tg = (targets_tensor(dshape, idx[2], upd[1], axis, mode) if op == "tensor_scatter"
          else targets_of(op, axis, dshape, idx[2], idx[1]))
    return reduce_into(dv, dt, [(t, upd[2][j]) for t, j in tg], red,
                       use_init if op == "scatter_elements" else True)

