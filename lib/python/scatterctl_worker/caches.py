"""Cold samples in a worker: the caches evicted before each timed call, outside the timed region,
as scatterctl's own backends do (docs/benchmarks.md, "How it is timed").

On the host, a 256 MiB buffer is written (the size scatterctl's cpu backend writes). On a GPU
(torch or CuPy arrays), a buffer of four times the L2 is written on the device, after the
persisting-L2 carve-out is emptied, its lines reset and the stream's access policy window
cleared, so that a kernel that marks its data persisting does not run hot in a cold row. The GPU
part has not yet run on a GPU (docs/cuda.md lists it)."""
import ctypes

import numpy as np

HOST_BYTES = 256 << 20
CUDA_LIMIT_PERSISTING_L2 = 6        # cudaLimitPersistingL2CacheSize
CUDA_ATTRIBUTE_POLICY_WINDOW = 1    # cudaStreamAttributeAccessPolicyWindow
CUDA_NOT_SUPPORTED = (801, 215)     # cudaErrorNotSupported, cudaErrorUnsupportedLimit
ATTRIBUTE_VALUE_BYTES = 64          # cudaStreamAttrValue (a union padded to 64 bytes)

_host = None


def flush_host():
    """Writes 256 MiB, which leaves no line of the inputs in any CPU cache."""
    global _host
    if _host is None:
        _host = np.zeros(HOST_BYTES, dtype=np.uint8)
    _host += 1


def _cudart():
    """The CUDA runtime the framework loaded (its path in /proc/self/maps), else one by name."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libcudart.so" in line:
                    return ctypes.CDLL(line.split()[-1])
    except OSError:
        pass
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise RuntimeError("no CUDA runtime library (libcudart) could be loaded to reset persisting L2 lines")


class DeviceFlush:
    """The L2 flush of a GPU, given its L2 size, a function that writes N bytes on the device, the
    current stream's handle and a synchronisation."""

    def __init__(self, l2_bytes, write, stream, sync):
        self.bytes = max(4 * int(l2_bytes), 64 << 20)
        self.write, self.stream, self.sync = write, stream, sync
        try:
            self.cudart = _cudart()
            self.persisting = "reset before each cold sample"
        except RuntimeError as e:  # the L2 is still flushed; a persisting line may survive it
            self.cudart = None
            self.persisting = f"not reset: {e}"

    def _call(self, what, status):
        if status != 0 and status not in CUDA_NOT_SUPPORTED:
            raise RuntimeError(f"{what} failed with CUDA error {status}")

    def __call__(self):
        rt = self.cudart
        if rt is None:
            self.write(self.bytes)
            self.sync()
            return
        self._call("cudaDeviceSetLimit(PersistingL2CacheSize, 0)",
                   rt.cudaDeviceSetLimit(ctypes.c_int(CUDA_LIMIT_PERSISTING_L2), ctypes.c_size_t(0)))
        self._call("cudaCtxResetPersistingL2Cache()", rt.cudaCtxResetPersistingL2Cache())
        none = ctypes.create_string_buffer(ATTRIBUTE_VALUE_BYTES)  # a window of 0 bytes: none
        self._call("cudaStreamSetAttribute(AccessPolicyWindow, none)",
                   rt.cudaStreamSetAttribute(ctypes.c_void_p(self.stream()), ctypes.c_int(CUDA_ATTRIBUTE_POLICY_WINDOW),
                                             none))
        self.write(self.bytes)
        self.sync()


def torch_flush(torch):
    """The flush of torch's current CUDA device."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    buffer = {}

    def write(n):
        if "b" not in buffer:
            buffer["b"] = torch.empty(n, dtype=torch.uint8, device="cuda")
        buffer["b"].add_(1)

    return DeviceFlush(getattr(props, "L2_cache_size", 50 << 20), write,
                       lambda: torch.cuda.current_stream().cuda_stream, torch.cuda.synchronize)


def cupy_flush(cupy):
    """The flush of CuPy's current device."""
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    buffer = {}

    def write(n):
        if "b" not in buffer:
            buffer["b"] = cupy.zeros(n, dtype=cupy.uint8)
        buffer["b"] += 1

    return DeviceFlush(props.get("l2CacheSize", 50 << 20), write,
                       lambda: cupy.cuda.get_current_stream().ptr, cupy.cuda.Device().synchronize)
