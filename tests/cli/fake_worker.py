"""A framework worker that breaks protocol 1 in one way, for tests/cli/workers.sh.

Run as `python fake_worker.py ARGS...` (the ARGS, `-u -m scatterctl_worker NAME`, are
ignored); $FAKE_WORKER_MODE says how it misbehaves:
  exit       prints a line to its log and exits before reading anything
  segv       answers hello, then dies of SIGSEGV on every run
  garbage    answers hello, then answers run with a line that is not JSON
  badshape   answers hello, then writes `updates` (the wrong shape) as the output
  silent     answers hello, then never answers run
  mute       never answers, not even hello
  identity   answers hello, then returns `data` unchanged (right only where the
             updates equal what they overwrite)
  negtime    as identity, but says the op took -1 s
  orphan     answers hello, then on run leaves a child holding its answer pipe and exits
  longline   answers hello, then answers run with 2 MiB and no end of line
  plant      as identity, but first plants links to $FAKE_VICTIM where the next request's
             tensors would go if their names could be guessed
  outlink    writes the output outside and answers with out.npy a link to it
  fifo       answers with out.npy a FIFO
  setsid     as identity, but first starts a process in a session of its own holding fds 3
             and 4, with $FAKE_MARKER in its command line
  spam       as identity, but first appends the size of its log to $FAKE_SIDE, then writes
             12 MiB to it
  lost       answers hello, then answers the first run with an error saying that it is lost
             for good (as a plugin host whose GPU context is gone), and every later run with
             status unavailable
"""
import json
import os
import shutil
import signal
import sys
import time

mode = os.environ.get("FAKE_WORKER_MODE", "")
if mode == "exit":
    print("fake worker: leaving at once, as asked", file=sys.stderr)
    sys.exit(3)

requests = os.fdopen(3, "rb")
answers = os.fdopen(4, "wb", buffering=0)


def answer(obj):
    answers.write((json.dumps(obj) + "\n").encode())


if mode == "mute":
    time.sleep(3600)

for line in requests:
    req = json.loads(line)
    op = req.get("op")
    if op == "shutdown":
        break
    if op == "hello":
        answer({"id": req["id"], "status": "ok", "protocol": 1, "name": "fake", "version": "0.0.1", "device": "none"})
    elif op != "run":  # bench's null calls (this fake knows no signals) and anything else
        answer({"id": req.get("id"), "status": "error", "message": f"unknown request op {op!r}"})
    elif mode == "lost":
        lost = "the GPU's context was lost (fake)"
        if req["id"] == 1:
            answer({"id": req["id"], "status": "error", "message": "a device fault", "lost": lost})
        else:
            answer({"id": req["id"], "status": "unavailable", "reason": lost})
    elif mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "garbage":
        answers.write(b"this is not json\n")
    elif mode == "badshape":
        shutil.copyfile(req["updates"], req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "silent":
        time.sleep(3600)
    elif mode == "identity":
        shutil.copyfile(req["data"], req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "orphan":
        import subprocess
        subprocess.Popen(["sleep", "120"], pass_fds=(4,))
        os._exit(0)
    elif mode == "longline":
        answers.write(b"x" * (2 << 20))
        time.sleep(3600)
    elif mode == "plant":
        folder = os.path.dirname(req["data"])
        for base in {folder, os.path.dirname(folder)}:
            for k in range(1, 4):
                for name in ("data", "indices", "updates", "out"):
                    try:
                        os.symlink(os.environ["FAKE_VICTIM"], os.path.join(base, f"{req['id'] + k}-{name}.npy"))
                    except FileExistsError:
                        pass
        shutil.copyfile(req["data"], req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "outlink":
        outside = os.environ["FAKE_VICTIM"]
        shutil.copyfile(req["data"], outside)
        os.symlink(outside, req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "fifo":
        os.mkfifo(req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "setsid":
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", os.environ["FAKE_MARKER"]],
                         start_new_session=True, pass_fds=(3, 4))
        shutil.copyfile(req["data"], req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "spam":
        with open(os.environ["FAKE_SIDE"], "a") as side:
            side.write(f"{os.fstat(1).st_size}\n")
        chunk = b"spam " * 200000 + b"\n"
        for _ in range(12):
            os.write(1, chunk)
        shutil.copyfile(req["data"], req["out"])
        answer({"id": req["id"], "status": "ok"})
    elif mode == "negtime":
        shutil.copyfile(req["data"], req["out"])
        answer({"id": req["id"], "status": "ok", "seconds": -1, "samples": [-1]})
    else:
        answer({"id": req["id"], "status": "error", "message": f"unknown FAKE_WORKER_MODE '{mode}'"})
