#!/usr/bin/python3
"""Page faults against time of one convolution backward on the CPU, with glibc's defaults and with freed
memory kept (what remat-runner sets, runtime/README.md "Time").

The backward of a 3x3 convolution over 512 channels on a 2x2 map (ResNet-18's layer4 at 64 px, batch 2)
makes weight-sized buffers of 9.4 MB. With glibc's defaults each gets a mapping of its own, unmapped when
it is freed, so every call page-faults them in again; kept, the calls after the first reuse them. Each
way runs in a process of its own (the setting is process-wide: glibc's environment tunables, the same
as remat-runner's mallopt), and prints each call's time and minor page faults.

    /usr/bin/python3 bench/page_faults.py      # a few seconds
"""

import os
import resource
import subprocess
import sys
import time

KEEP = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**31 - 1)}


def calls(rounds=8):
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    conv = torch.nn.Conv2d(512, 512, 3, padding=1, bias=False)
    x = torch.randn(2, 512, 2, 2, requires_grad=True)
    seed = torch.randn(2, 512, 2, 2)
    for r in range(rounds):
        out = conv(x)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        out.backward(seed)
        seconds = time.perf_counter() - start
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        print(f"  call {r}: {seconds * 1e3:6.2f} ms, {faults:5d} minor page faults", flush=True)
        conv.weight.grad = None
        x.grad = None


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--calls":
        calls()
        return
    for label, extra in (("glibc's defaults", {}), ("freed memory kept", KEEP)):
        print(label)
        env = dict(os.environ, **extra)
        subprocess.run([sys.executable, __file__, "--calls"], env=env, check=True)


if __name__ == "__main__":
    main()
