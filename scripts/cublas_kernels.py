#!/usr/bin/env python3
"""Which kernels cuBLAS runs for torch.mm, on the GPU runner (torch installed there).

usage: python3 cublas_kernels.py SHAPES.csv [OUT.csv]
SHAPES.csv columns: name,M,N,K[,...] (peer_cublas.py's shapes files; 16-bit rows only,
bf16 unless a dtype column says fp16). For each row: Y[M,N] = X[M,K] @ W[N,K]^T, as
peer_cublas.py times it, run a few times under torch.profiler; prints (and writes to
OUT.csv) every CUDA kernel of the last call: its name (nvjet's names carry the tile,
the cluster shape and the split: nvjet_sm90_tst_<BM>x<BN>_<BK>x<stages>_<cluster>_...),
grid, block, and the profiler's duration (profiled, so only a guide: time with
peer_cublas.py). What it is for: knowing the vendor's decomposition at a shape before
designing ours (issue 17: mid M).
"""
import csv
import json
import os
import sys
import tempfile

import torch


def kernels(m, n, k, dtype):
    x = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    for _ in range(3):
        torch.mm(x, w.t())
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        torch.mm(x, w.t())
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    os.unlink(path)
    out = []
    for e in trace.get("traceEvents", []):
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        out.append((e["name"], "x".join(map(str, a.get("grid", []))), "x".join(map(str, a.get("block", []))),
                    a.get("shared memory", ""), e.get("dur", 0.0)))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = []
    with open(sys.argv[1]) as f:
        for r in csv.reader(f):
            if not r or r[0].startswith("#") or r[0] == "name":
                continue
            dt = r[4].strip() if len(r) > 4 and r[4].strip() else "bf16"
            if dt not in ("bf16", "fp16"):
                continue
            rows.append((r[0], int(r[1]), int(r[2]), int(r[3]), dt))
    print(f"torch {torch.__version__}, cuBLAS {torch.backends.cuda.preferred_blas_library()}, {torch.cuda.get_device_name()}")
    w = csv.writer(open(sys.argv[2], "w", newline="")) if len(sys.argv) > 2 else None
    if w:
        w.writerow(["name", "M", "N", "K", "dtype", "kernel", "grid", "block", "smem", "profiled_us"])
    for name, m, n, k, dt in rows:
        for kn, grid, block, smem, dur in kernels(m, n, k, torch.bfloat16 if dt == "bf16" else torch.float16):
            print(f"{name:24s} M={m:<6d} N={n:<6d} K={k:<6d} {kn} grid {grid} block {block} smem {smem} {dur:.1f} us")
            if w:
                w.writerow([name, m, n, k, dt, kn, grid, block, smem, dur])


if __name__ == "__main__":
    main()
