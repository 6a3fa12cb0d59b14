"""Export bench/learn/matmul.onnx: one float32 MatMul, A [M,K] x B [K,N] with dynamic
sizes — bench:learn's measure of this machine's onnxruntime matrix-product peak, against
which the trainer's own throughput is reported.

    /usr/bin/python3 tools/trainer/export_matmul.py
"""

from pathlib import Path

import onnx
from onnx import TensorProto, helper

OUT = Path(__file__).resolve().parent.parent.parent / "bench" / "learn" / "matmul.onnx"


def main() -> None:
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["m", "k"])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["k", "n"])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, ["m", "n"])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul", [a, b], [c])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gatelab-bench")
    onnx.checker.check_model(model)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(OUT))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
