"""python -u -m scatterctl_worker BACKEND: one framework worker speaking protocol 1.

Requests come in on fd 3, answers go out on fd 4, one JSON object a line. stdout is pointed at
stderr first, so whatever a framework prints cannot corrupt the answers.
"""
import os
import sys

PROTOCOL = 1


def main(argv):
    # Claim fds 3 and 4 first: once stdout is re-pointed, a dup() could take a free number 3 or 4.
    from .channel import claim
    channel = claim((3, 4), "scatterctl_worker", "requests come in on fd 3 and answers go out on fd 4")
    if channel is None:
        return 2
    rd, wr = channel
    import json
    import traceback

    if len(argv) != 2:
        print("usage: python -u -m scatterctl_worker BACKEND", file=sys.stderr)
        return 2
    backend = argv[1]

    def answer(obj):
        line = json.dumps(obj, allow_nan=False, default=str) + "\n"
        wr.write(line.encode("utf-8"))

    def error(rid, exc, tb=True):
        msg = str(exc) if isinstance(exc, getattr(protocol_mod, "Failed", ())) else f"{type(exc).__name__}: {exc}"
        a = {"id": rid, "status": "error", "message": msg[:4000]}
        if tb:
            a["traceback"] = traceback.format_exc()[-8000:]
        return a

    def unsupported(rid, exc):
        return {"id": rid, "status": "unsupported", "reason": str(exc)[:4000], "declared": exc.declared}

    adapter = None
    unavailable = None
    protocol_mod = None

    def get_adapter():
        nonlocal adapter, unavailable, protocol_mod
        if adapter is not None or unavailable is not None:
            return adapter
        try:
            from . import protocol as pm
            from .backends import make_adapter
            protocol_mod = pm
            a = make_adapter(backend)
            a.load()
            adapter = a
        except Exception as e:  # ImportError, a broken install, an unknown backend name
            unavailable = f"{type(e).__name__}: {e}" if not isinstance(e, ImportError) else str(e)
            print(f"scatterctl_worker: {backend} is unavailable:\n{traceback.format_exc()}", file=sys.stderr)
        return adapter

    class Signals:
        """The timer's signals (docs/backends.md, "The clock"): 'ready' just before the timed call,
        answered by 'go'; 'done' just after it. The driving scatterctl times the call on its own
        clock from go to done."""

        def __init__(self, rid):
            self.rid = rid

        def expect(self, op):
            line = rd.readline()
            try:
                req = json.loads(line.decode("utf-8"))
            except Exception:
                req = None
            if not isinstance(req, dict) or req.get("id") != self.rid or req.get("op") != op:
                raise protocol_mod.ProtocolError(f"expected '{op}' for request {self.rid}, got {line[:200]!r}")

        def starting(self):
            answer({"id": self.rid, "signal": "ready"})
            self.expect("go")

        def stopped(self):
            answer({"id": self.rid, "signal": "done"})

    buf = b""
    kept = None  # (run_key, Case, Prepared, flags) of the last request that ran
    varied = None  # the undo of the variation applied to the kept case, if any
    while True:
        chunk = rd.readline()
        if not chunk:
            return 0
        buf = chunk if not buf else buf + chunk
        if not buf.endswith(b"\n"):
            continue
        line, buf = buf, b""
        if not line.strip():
            continue
        rid = None
        try:
            try:
                req = json.loads(line.decode("utf-8"))
            except Exception as e:
                answer(error(None, e, tb=False) | {"message": f"malformed request: {e}"})
                continue
            if not isinstance(req, dict):
                answer({"id": None, "status": "error", "message": "malformed request: not a JSON object"})
                continue
            rid = req.get("id")
            op = req.get("op")
            if op == "shutdown":
                answer({"id": rid, "status": "ok"})
                return 0
            if op == "null_call":  # the signals' own cost, measured before hello imports anything
                if req.get("flush_caches") is True:
                    from .caches import flush_host
                    flush_host()
                signals = Signals(rid)
                signals.starting()
                signals.stopped()
                answer({"id": rid, "status": "ok"})
                continue
            if op == "hello":
                proto = req.get("protocol", PROTOCOL)
                if proto != PROTOCOL:
                    answer({"id": rid, "status": "error",
                            "message": f"protocol {proto!r} is not supported (this worker speaks {PROTOCOL})"})
                    continue
                if req.get("backend", backend) != backend:
                    answer({"id": rid, "status": "error",
                            "message": f"this worker runs {backend!r}, not {req.get('backend')!r}"})
                    continue
                a = get_adapter()
                if a is None:
                    answer({"id": rid, "status": "unavailable", "reason": unavailable})
                    continue
                answer({"id": rid, "status": "ok", "protocol": PROTOCOL} | a.hello())
                continue
            if op == "run":
                a = get_adapter()
                if a is None:
                    answer({"id": rid, "status": "unavailable", "reason": unavailable})
                    continue
                pm = protocol_mod
                # bench's later samples of a case say same_inputs and name the same files: the
                # case prepared for the last request (loaded, converted, uploaded) is timed again.
                key = pm.run_key(req)
                reuse = req.get("same_inputs") is True and kept is not None and kept[0] == key
                case, prep, flags = kept[1:] if reuse else (None, None, None)
                if reuse and varied:
                    pm.undo_variation(varied)  # the kept case's own values, before this request's
                    prep = None  # it was prepared from the varied values
                kept = varied = None  # a case that fails is not kept; the last one's tensors go before the next loads
                try:
                    if reuse:
                        out_path = pm.parse_out(req)
                    else:
                        case, out_path, flags = pm.parse_run(req)
                    if "vary" in req:  # bench's timed call: inputs no earlier call saw
                        varied = pm.apply_variation(case, req["vary"])
                        prep = None
                except pm.ProtocolError as e:
                    answer({"id": rid, "status": "error", "message": f"bad request: {e}"})
                    continue
                try:
                    if prep is None or a.untrusted:
                        prep = a.prepare(case, flags)
                    out, fields = a.run_prepared(prep, cold=flags.get("flush_caches") is True,
                                                 signals=Signals(rid) if req.get("signals") is True else None)
                    kept = (key, case, prep, flags)
                except pm.Rejected as e:
                    answer({"id": rid, "status": "rejected", "code": e.code, "message": e.message[:4000]})
                    continue
                except pm.Unsupported as e:
                    answer(unsupported(rid, e))
                    continue
                except Exception as e:
                    verdict = None
                    try:
                        verdict = a.classify(e)
                    except Exception:
                        pass
                    if isinstance(verdict, pm.Rejected):
                        answer({"id": rid, "status": "rejected", "code": verdict.code,
                                "message": verdict.message[:4000]})
                    elif isinstance(verdict, pm.Unsupported):
                        answer(unsupported(rid, verdict))
                    else:
                        answer(error(rid, e))
                    continue
                pm.check_output(case, out)
                pm.write_npy(out_path, out)
                answer({"id": rid, "status": "ok"} | fields)
                continue
            answer({"id": rid, "status": "error", "message": f"unknown request op {op!r}"})
        except Exception as e:  # never crash on a request
            try:
                answer(error(rid, e))
            except Exception:
                return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
