"""Class N4 (an output computed when read): returns an object of a subclass of numpy.ndarray whose
values are filled in when anything asks for them. The box takes an output by its exact type only."""
import numpy as np

from common import CAPABILITIES, right  # noqa: F401


class Lazy(np.ndarray):
    def __array__(self, *args, **kwargs):
        self[...] = self._later()
        return np.asarray(self.view(np.ndarray), *args[1:], **kwargs)


def scatter(op, data, indices, updates, **attrs):
    out = np.empty_like(data).view(Lazy)
    out._later = lambda: right.scatter(op, data, indices, updates, **attrs)
    return out
