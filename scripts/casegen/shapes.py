"""Row-major coordinates of shapes given as lists of extents."""


def prod(xs):
    """The number of elements of a shape (1 for [])."""
    n = 1
    for x in xs:
        n *= x
    return n


def ndindex(shape):
    """All coordinates of shape in row-major order."""
    n = prod(shape)
    for flat in range(n):
        c, rem = [], flat
        for d in reversed(shape):
            c.append(rem % d)
            rem //= d
        yield tuple(reversed(c))


def ravel(coords, shape):
    """The row-major flat offset of coords in shape."""
    off = 0
    for c, d in zip(coords, shape):
        off = off * d + c
    return off

