"""The simulator's plain run against a recorded PyTorch step (see trace-errors.sh)."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from benchmarks_md import replace_section

ROOT = pathlib.Path(__file__).resolve().parent.parent
REMAT = os.environ["REMAT_BIN"]
DEFAULT = ["resnet18:2:64", "resnet50:2:64", "mobilenet_v2:2:64", "vgg11:1:224", "densenet121:2:64"]


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def main():
    lines = ["| model | batch, size | simulated plain-run peak (MiB) | recorded peak (MiB) | error |",
             "|---|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for spec in sys.argv[1:] or DEFAULT:
            name, batch, size = spec.split(":")
            base = pathlib.Path(tmp) / name
            run(["/usr/bin/python3", str(ROOT / "runtime" / "trace_step.py"), "--torchvision", name, "--batch", batch,
                 "--size", size, "--onnx", f"{base}.onnx", "-o", f"{base}.trace.json"])
            run([REMAT, "convert", f"{base}.onnx", f"{base}.json"])
            j = json.loads(run([REMAT, "validate", f"{base}.json", "--measured", f"{base}.trace.json", "--json"]))
            lines.append(f"| {name} | {batch}, {size}x{size} | {j['predicted_peak_bytes'] / 2**20:.1f} | "
                         f"{j['measured_peak_bytes'] / 2**20:.1f} | {j['error_percent']:+.2f}% |")
            print(lines[-1], file=sys.stderr)
    replace_section("TRACE-ERRORS", "\n".join(lines))


if __name__ == "__main__":
    main()
