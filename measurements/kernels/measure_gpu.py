#!/usr/bin/env python3
"""Measure one NVIDIA GPU's kernels that the step model prices: GEMMs by shape and number
format (bf16, fp8), HBM streaming by size, and fused attention, as TSV on stdout.

Run on the GPU itself (PyTorch with CUDA):  python3 measure_gpu.py > h200-kernels.tsv
and the shape grid, grouped GEMMs and launch costs:  python3 measure_gpu.py grid

Every time is the median of triton.testing.do_bench (CUDA events, the L2 flushed before
each run, so weights are read from HBM as in a training step). Inputs are random normal
(never zeros: they run faster). Each GEMM is checked against a float32 product first.
Columns: kind dtype m n k batch bytes flops seconds (FLOPs counted 2mnk; bytes as the
fewest a kernel must move: inputs read once, output written once).
"""
import sys
import time

import torch
import triton.testing

DEV = "cuda"
T0 = time.time()
BUDGET_S = 300  # stop adding rows past this, so the run ends inside the lease


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median") * 1e-3


def row(kind, dtype, m, n, k, batch, nbytes, flops, secs):
    print(f"{kind}\t{dtype}\t{m}\t{n}\t{k}\t{batch}\t{nbytes:.0f}\t{flops:.0f}\t{secs:.6e}",
          flush=True)


def rel_err(out, ref):
    return float((out.float() - ref).norm() / ref.norm())


def fp8_operands(m, n, k):
    a = torch.randn(m, k, device=DEV)
    b = torch.randn(n, k, device=DEV)
    sa = (a.abs().max() / 448.0).float()
    sb = (b.abs().max() / 448.0).float()
    a8 = (a / sa).to(torch.float8_e4m3fn)
    b8 = (b / sb).to(torch.float8_e4m3fn).t()  # column-major k x n, as cuBLASLt wants
    return a, b, a8, b8, sa, sb


def gemm(m, n, k, dtype):
    flops = 2.0 * m * n * k
    if dtype == "bf16":
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
        err = rel_err(a @ b, a.float() @ b.float())
        assert err < 1e-2, (m, n, k, err)
        secs = bench(lambda: a @ b)
        nbytes = 2.0 * (m * k + k * n + m * n)
    else:
        a, b, a8, b8, sa, sb = fp8_operands(m, n, k)
        mm = lambda: torch._scaled_mm(a8, b8, sa, sb, out_dtype=torch.bfloat16,
                                      use_fast_accum=True)
        err = rel_err(mm(), a @ b.t())
        assert err < 0.1, (m, n, k, err)
        secs = bench(mm)
        nbytes = 1.0 * (m * k + k * n) + 2.0 * m * n
    row("gemm", dtype, m, n, k, 1, nbytes, flops, secs)


def gemm_shapes():
    """Square sizes; the token dimension swept at a 4096 x 4096 weight (small shapes and
    decode); one layer's GEMMs of Llama-3 8B (TP1) and 70B (TP8) at 8192 tokens, forward
    (tokens x in -> out) and weight gradient (in x out over the tokens); wave-quantized sizes."""
    shapes = [(s, s, s) for s in (256, 512, 1024, 2048, 4096, 8192, 16384)]
    shapes += [(m, 4096, 4096) for m in (16, 64, 128, 256, 512, 1024, 2048, 8192, 16384)]
    t = 8192
    for d, qkv, f, tp in ((4096, 6144, 14336, 1), (8192, 10240, 28672, 8)):
        for n_in, n_out in ((d, qkv // tp), (d // tp, d),
                            (d, 2 * f // tp), (f // tp, d)):
            shapes.append((t, n_out, n_in))
            shapes.append((n_in, n_out, t))
    shapes += [(8192, 8192 + 128, 8192), (8192, 8192 + 1024, 8192), (4224, 4224, 4224)]
    return shapes


def stream(nbytes):
    n = int(nbytes // 2)
    x = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    row("copy", "bf16", n, 0, 0, 1, 2.0 * nbytes, 0, bench(lambda: y.copy_(x)))
    row("read", "bf16", n, 0, 0, 1, 1.0 * nbytes, 0, bench(lambda: x.sum(dtype=torch.float32)))


def attention(s, heads, batch, with_bwd):
    d = 128
    q, k, v = (torch.randn(batch, heads, s, d, device=DEV, dtype=torch.bfloat16,
                           requires_grad=with_bwd) for _ in range(3))
    f = torch.nn.functional.scaled_dot_product_attention
    flops = 4.0 * batch * heads * s * s * d / 2  # causal: half the score blocks
    if with_bwd:
        g = torch.randn_like(q)
        fn = lambda: f(q, k, v, is_causal=True).backward(g)
        flops *= 3.5  # backward 2.5 x forward (recomputed scores)
    else:
        fn = lambda: f(q, k, v, is_causal=True)
    nbytes = 2.0 * 4 * batch * heads * s * d
    row("attn_fwdbwd" if with_bwd else "attn_fwd", "bf16", s, heads, d, batch, nbytes, flops,
        bench(fn))


def grid():
    """The token dimension against weight shapes, both formats: the efficiency surface."""
    for dtype in ("bf16", "fp8"):
        for k in (1024, 4096, 8192):
            for n in (1024, 2560, 4096, 8192, 14336):
                for m in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
                    if time.time() - T0 > BUDGET_S:
                        return
                    gemm(m, n, k, dtype)


def grouped():
    """Batched GEMMs of equal experts (the dense bound of a grouped expert GEMM)."""
    for e in (4, 8, 32):
        for m in (128, 512, 2048):
            for n, k in ((4096, 7168), (7168, 2048), (2816, 4096)):
                a = torch.randn(e, m, k, device=DEV, dtype=torch.bfloat16)
                b = torch.randn(e, k, n, device=DEV, dtype=torch.bfloat16)
                secs = bench(lambda: torch.bmm(a, b))
                row("bmm", "bf16", m, n, k, e, 2.0 * e * (m * k + k * n + m * n),
                    2.0 * e * m * n * k, secs)


def launches():
    """Per-kernel cost of tiny kernels: launched one by one from Python (eager) and
    replayed from a CUDA graph; and the spread of one large GEMM over repeats."""
    x = torch.randn(1024, device=DEV)
    n = 2000
    def chain():
        for _ in range(n):
            x.add_(1.0)
    chain()
    torch.cuda.synchronize()
    t = time.perf_counter()
    chain()
    torch.cuda.synchronize()
    row("eager_kernel", "fp32", 1024, 0, 0, n, 8.0 * 1024 * n, 0, (time.perf_counter() - t) / n)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        chain()
        with torch.cuda.graph(g):
            chain()
    torch.cuda.synchronize()
    row("graph_kernel", "fp32", 1024, 0, 0, n, 8.0 * 1024 * n, 0, bench(g.replay) / n)
    for _ in range(5):
        gemm(8192, 8192, 8192, "bf16")


def main():
    p = torch.cuda.get_device_properties(0)
    print(f"# device\t{p.name}\tSMs {p.multi_processor_count}\tmemory {p.total_memory}")
    print(f"# torch\t{torch.__version__}\tcuda {torch.version.cuda}\t"
          f"cublas {torch.backends.cuda.preferred_blas_library()}")
    print("kind\tdtype\tm\tn\tk\tbatch\tbytes\tflops\tseconds", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    if sys.argv[1:] == ["grid"]:
        launches()
        grouped()
        grid()
        print(f"# done in {time.time() - T0:.0f} s")
        return
    for nbytes in (2**20, 2**22, 2**24, 2**26, 2**28, 2**30, 2**32):
        stream(nbytes)
    for m, n, k in gemm_shapes():
        for dtype in ("bf16", "fp8"):
            if time.time() - T0 > BUDGET_S:
                print("# stopped: time budget", flush=True)
                return
            gemm(m, n, k, dtype)
    for s in (1024, 4096, 8192, 16384):
        for with_bwd in (False, True):
            attention(s, 32, max(1, 16384 // s), with_bwd)
    print(f"# done in {time.time() - T0:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
