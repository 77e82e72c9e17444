"""python -u -m scatterctl_box SPEC: the box's runtime beside a user's Python kernel.

It holds nothing of the judge (docs/backends.md, "The box"): scatterctl owns the inputs and the
output, the clock, every draw and every check. This loop maps the regions scatterctl hands it,
calls the kernel between "go" and its answer, says how long that took by its own clock (which
scatterctl checks against its own), and names where the output lies; scatterctl reads it from this
process while it is frozen. Requests come in on fd 3, answers go out on fd 4, one JSON object a
line; the regions' descriptors arrive on fd 5. The kernel is imported only when asked "hello".
"""
import os
import sys
from time import perf_counter as _clock  # bound before any kernel is imported (one may patch `time`)

PROTOCOL = 2
# What scatterctl reads at the address the hello names, to learn that it can read this process.
PROBE_TEXT = b"scatterctl box probe: the judge reads outputs here"


class Box:
    """The kernel and the case in hand."""

    def __init__(self, spec, np, kb):
        self.spec, self.np, self.kb = spec, np, kb
        self.adapter = None
        self.case = None
        self.last = None  # the last output, kept until the next call: scatterctl reads it frozen

    def hello(self, probe_address):
        adapter = self.kb.KernelAdapter(self.spec)
        adapter.load()  # ImportError and friends: unavailable, with the reason
        self.adapter = adapter
        answer = {"status": "ok", "protocol": PROTOCOL} | adapter.hello()
        answer["output"] = "address"
        answer["probe"] = {"address": probe_address, "text": PROBE_TEXT.decode()}
        return answer

    def take_case(self, req, regions):
        import mmap

        from scatterctl_spec import OPS
        from scatterctl_worker.protocol import HOLD

        np = self.np
        inputs_fd, output_fd = regions
        try:
            inputs = mmap.mmap(inputs_fd, 0, prot=mmap.PROT_READ)
            output = mmap.mmap(output_fd, 0, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(inputs_fd)
            os.close(output_fd)
        c = req["case"]
        if c.get("op") not in OPS:
            raise self.kb.Unsupported(f"unknown op {c.get('op')!r}")

        def view(t, region, offset):
            shape = tuple(int(d) for d in t["shape"])
            count = 1
            for d in shape:
                count *= d
            return np.frombuffer(region, dtype=HOLD[t["dtype"]], count=count, offset=offset).reshape(shape)

        tensors = req["tensors"]
        views = [(view(tensors[k], inputs, int(tensors[k]["offset"])), tensors[k]["dtype"])
                 for k in ("data", "indices", "updates")]
        dtype = tensors["data"]["dtype"]
        out = req["out"]
        kwargs = {"axis": c.get("axis", 0), "reduction": c.get("reduction", "none"),
                  "use_init_val": c.get("use_init_val", True)}
        if c["op"] == "tensor_scatter":  # only kernels that declare it have the parameter
            kwargs["mode"] = c.get("mode", "linear")
        self.case = {"op": c["op"], "views": views, "kwargs": kwargs, "dtype": dtype,
                     "out": view(tensors["data"], output, int(out["offset"])),
                     "copy": out.get("way") == "copy", "regions": (inputs, output),
                     "hold": np.dtype(np.uint16) if dtype == "bfloat16" else np.dtype(HOLD[dtype])}

    def call(self):
        """One timed call: the kernel on the regions' inputs, its output a host array whose address
        the answer names (or, where scatterctl cannot read this process, copied into its region).
        -> (seconds, answer fields)."""
        import gc

        np, kb, case = self.np, self.kb, self.case
        if case is None:
            raise kb.KernelError("go before any case")
        arrays = self.adapter.arrays
        self.last = None
        gc.disable()  # no collection inside the timed call: the harness's garbage is not the kernel's
        try:
            start = _clock()
            inputs = [arrays.box_input(a, dtype) for a, dtype in case["views"]]
            try:
                result = self.adapter.func(case["op"], *inputs, **case["kwargs"])
                arrays.ready(result)
            except (NotImplementedError, IndexError):
                raise
            except Exception as e:
                raise kb.KernelError(kb.described(e, e.__traceback__.tb_next)) from e
            y = arrays.box_output(result, case["dtype"])
            want_shape = case["views"][0][0].shape
            if y.shape != want_shape:
                raise kb.KernelError(f"the kernel returned shape {y.shape}, data is {want_shape}")
            if y.dtype != case["hold"]:
                raise kb.KernelError(f"the kernel returned dtype {y.dtype}, data is {case['dtype']}")
            if not y.flags.c_contiguous:
                y = np.ascontiguousarray(y)
            if case["copy"]:
                case["out"][...] = y
            seconds = _clock() - start
        finally:
            gc.enable()
        self.last = y
        return max(seconds, 1e-9), {"out": {"address": y.__array_interface__["data"][0], "bytes": int(y.nbytes)}}


def main(argv):
    from scatterctl_worker.channel import claim
    channel = claim((3, 4, 5), "scatterctl_box", "requests come in on fd 3, answers go out on fd 4 and descriptors on "
                    "fd 5")
    if channel is None:
        return 2
    rd, wr = channel
    import faulthandler
    faulthandler.enable()  # a kernel that writes into its read-only inputs dies; its log says where
    if len(argv) != 2:
        print("usage: python -u -m scatterctl_box python:FILE.py[:FUNC]", file=sys.stderr)
        return 2
    import ctypes
    import json
    import socket

    import numpy as np

    from scatterctl_worker import kernel_backend as kb

    fds = socket.socket(fileno=5)
    probe = ctypes.create_string_buffer(PROBE_TEXT)
    box = Box(argv[1], np, kb)

    def answer(obj):
        wr.write((json.dumps(obj, allow_nan=False, default=str) + "\n").encode("utf-8"))

    while True:
        line = rd.readline()
        if not line:
            return 0
        try:
            req = json.loads(line.decode("utf-8"))
        except Exception as e:
            answer({"id": None, "status": "error", "message": f"malformed request: {e}"})
            continue
        if not isinstance(req, dict):
            answer({"id": None, "status": "error", "message": "malformed request: not a JSON object"})
            continue
        rid, op = req.get("id"), req.get("op")
        try:
            if op == "shutdown":
                return 0
            if op == "null":  # the path's own cost, measured before hello imports anything
                answer({"id": rid, "status": "ok"})
            elif op == "go":
                seconds, fields = box.call()
                answer({"id": rid, "status": "ok", "seconds": seconds} | fields)
            elif op == "hello":
                try:
                    answer({"id": rid} | box.hello(ctypes.addressof(probe)))
                except Exception as e:
                    reason = str(e) if isinstance(e, ImportError) else f"{type(e).__name__}: {e}"
                    answer({"id": rid, "status": "unavailable", "reason": reason[:4000]})
            elif op == "case":
                box.case = None
                _, regions, _, _ = socket.recv_fds(fds, 1, 2)
                if len(regions) != 2:
                    raise kb.KernelError("the case's regions did not arrive")
                box.take_case(req, regions)
                answer({"id": rid, "status": "ok"})
            else:
                answer({"id": rid, "status": "error", "message": f"unknown request op {op!r}"})
        except NotImplementedError as e:
            answer({"id": rid, "status": "unsupported", "declared": True,
                    "reason": (f"the kernel raised NotImplementedError: {e}" if str(e) else
                               "the kernel raised NotImplementedError")[:4000]})
        except IndexError as e:
            answer({"id": rid, "status": "rejected", "code": "index",
                    "message": f"the kernel raised IndexError: {e}"[:4000]})
        except kb.Unsupported as e:
            answer({"id": rid, "status": "unsupported", "declared": e.declared, "reason": str(e)[:4000]})
        except Exception as e:
            msg = str(e) if isinstance(e, kb.Failed) else f"{type(e).__name__}: {e}"
            answer({"id": rid, "status": "error", "message": msg[:4000]})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
