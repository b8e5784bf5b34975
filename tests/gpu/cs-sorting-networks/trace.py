#!/usr/bin/env python3
"""Hand trace of the sample's host functions, and a check of what variants.toml verifies.

Not part of the suite (gpuprof never runs it): plain Python, no GPU, no packages.
It follows bitonicSort() (bitonicSort.cu:233-271) and oddEvenMergeSort()
(oddEvenMergeSort.cu:146-186) for batchSize = 1 and dir = 0, printing every
launch with its grid, block and scalar arguments in order, and emulates each
kernel thread by thread (one comparator a thread, the shared-memory kernels'
inner loops step by step between their cg::sync) on keys drawn as main.cpp
draws them (uniform in [0, 65536)) and random u32 values. It then checks what
the suite relies on: both networks leave the keys sorted descending and
identical; every (key, value) pair survives; the values of equal keys may be
ordered differently by the two networks, so only their sums are equal.

    python3 trace.py            # N = 4096 and 65536, the suite's sizes (about 10 s)
    python3 trace.py 2048       # any power of two above SHARED_SIZE_LIMIT
"""
import random
import sys

SHARED_SIZE_LIMIT = 1024


def comparator(key, val, a, b, d):
    # sortingNetworks_common.cuh: swap when (keyA > keyB) == dir
    if (key[a] > key[b]) == (d != 0):
        key[a], key[b] = key[b], key[a]
        val[a], val[b] = val[b], val[a]


def shared_threads(n):
    """(chunk base, threadIdx.x, global thread index) of blockCount = n/1024 blocks of 512 threads."""
    for block in range(n // SHARED_SIZE_LIMIT):
        for t in range(SHARED_SIZE_LIMIT // 2):
            yield block * SHARED_SIZE_LIMIT, t, block * (SHARED_SIZE_LIMIT // 2) + t, block


def bitonic_sort_shared1(key, val, n):
    threads = list(shared_threads(n))
    size = 2
    while size < SHARED_SIZE_LIMIT:
        stride = size // 2
        while stride > 0:
            for base, t, _, _ in threads:
                ddd = int((t & (size // 2)) != 0)
                pos = 2 * t - (t & (stride - 1))
                comparator(key, val, base + pos, base + pos + stride, ddd)
            stride //= 2
        size *= 2
    stride = SHARED_SIZE_LIMIT // 2
    while stride > 0:
        for base, t, _, block in threads:
            pos = 2 * t - (t & (stride - 1))
            comparator(key, val, base + pos, base + pos + stride, block & 1)
        stride //= 2


def bitonic_merge_global(key, val, n, size, stride, d):
    for i in range(n // 2):  # grid n/512 x block 256 threads
        comparator_i = i & (n // 2 - 1)
        ddd = d ^ int((comparator_i & (size // 2)) != 0)
        pos = 2 * i - (i & (stride - 1))
        comparator(key, val, pos, pos + stride, ddd)


def bitonic_merge_shared(key, val, n, size, d):
    threads = list(shared_threads(n))
    stride = SHARED_SIZE_LIMIT // 2
    while stride > 0:
        for base, t, g, _ in threads:
            ddd = d ^ int(((g & (n // 2 - 1)) & (size // 2)) != 0)
            pos = 2 * t - (t & (stride - 1))
            comparator(key, val, base + pos, base + pos + stride, ddd)
        stride //= 2


def odd_even_merge_sort_shared(key, val, n, array_length, d):
    threads = list(shared_threads(n))
    size = 2
    while size <= array_length:
        stride = size // 2
        for base, t, _, _ in threads:
            pos = 2 * t - (t & (stride - 1))
            comparator(key, val, base + pos, base + pos + stride, d)
        first = stride
        stride //= 2
        while stride > 0:
            for base, t, _, _ in threads:
                offset = t & (first - 1)
                pos = 2 * t - (t & (stride - 1))
                if offset >= stride:
                    comparator(key, val, base + pos - stride, base + pos, d)
            stride //= 2
        size *= 2


def odd_even_merge_global(key, val, n, size, stride, d):
    for i in range(n // 2):
        pos = 2 * i - (i & (stride - 1))
        if stride < size // 2:
            if (i & (size // 2 - 1)) >= stride:
                comparator(key, val, pos - stride, pos, d)
        else:
            comparator(key, val, pos, pos + stride, d)


def bitonic_sort(key, val, n, d, trace):
    blocks, threads = n // SHARED_SIZE_LIMIT, SHARED_SIZE_LIMIT // 2
    trace.append(f"bitonicSortShared1<<<{blocks}, {threads}>>>(dstKey, dstVal, srcKey, srcVal)")
    bitonic_sort_shared1(key, val, n)
    size = 2 * SHARED_SIZE_LIMIT
    while size <= n:
        stride = size // 2
        while stride > 0:
            if stride >= SHARED_SIZE_LIMIT:
                trace.append(f"bitonicMergeGlobal<<<{n // 512}, 256>>>(dst, dst, arrayLength={n}, size={size}, stride={stride}, dir={d})")
                bitonic_merge_global(key, val, n, size, stride, d)
            else:
                trace.append(f"bitonicMergeShared<<<{blocks}, {threads}>>>(dst, dst, arrayLength={n}, size={size}, dir={d})")
                bitonic_merge_shared(key, val, n, size, d)
                break
            stride //= 2
        size *= 2


def odd_even_merge_sort(key, val, n, d, trace):
    blocks, threads = n // SHARED_SIZE_LIMIT, SHARED_SIZE_LIMIT // 2
    trace.append(f"oddEvenMergeSortShared<<<{blocks}, {threads}>>>(dstKey, dstVal, srcKey, srcVal, arrayLength={SHARED_SIZE_LIMIT}, dir={d})")
    odd_even_merge_sort_shared(key, val, n, SHARED_SIZE_LIMIT, d)
    size = 2 * SHARED_SIZE_LIMIT
    while size <= n:
        stride = size // 2
        while stride > 0:
            trace.append(f"oddEvenMergeGlobal<<<{n // 512}, 256>>>(dst, dst, arrayLength={n}, size={size}, stride={stride}, dir={d})")
            odd_even_merge_global(key, val, n, size, stride, d)
            stride //= 2
        size *= 2


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [4096, 65536]
    ok = True
    for n in sizes:
        assert n > SHARED_SIZE_LIMIT and n & (n - 1) == 0, "N must be a power of two above 1024"
        rng = random.Random(2001)  # main.cpp's srand(2001); the draws differ, the distribution is the same
        key = [rng.randrange(65536) for _ in range(n)]
        val = [rng.randrange(1 << 32) for _ in range(n)]
        runs = {}
        for name, sort in (("bitonic", bitonic_sort), ("odd-even-merge", odd_even_merge_sort)):
            k, v, trace = key[:], val[:], []
            sort(k, v, n, 0, trace)
            runs[name] = (k, v)
            print(f"N={n} {name}: {len(trace)} launches")
            for i, line in enumerate(trace, 1):
                print(f"  {i:3} {line}")
        (kb, vb), (ko, vo) = runs["bitonic"], runs["odd-even-merge"]
        want = sorted(key, reverse=True)
        pairs = sorted(zip(key, val))
        checks = {
            "bitonic keys sorted descending": kb == want,
            "odd-even-merge keys sorted descending": ko == want,
            "keys identical (elementwise)": kb == ko,
            "bitonic keeps every (key, value) pair": sorted(zip(kb, vb)) == pairs,
            "odd-even-merge keeps every (key, value) pair": sorted(zip(ko, vo)) == pairs,
            "value sums equal": sum(vb) == sum(vo) == sum(val),
            "value sum exact in an f64 (< 2^53)": sum(val) < 2**53,
        }
        print(f"N={n}: {len(set(key))} distinct keys of {n}; values identical elementwise: {vb == vo} (need not be)")
        for what, good in checks.items():
            print(f"  {'ok  ' if good else 'FAIL'} {what}")
            ok &= good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
