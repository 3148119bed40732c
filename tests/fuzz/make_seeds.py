# Regenerates the fuzz seed corpora, so every seed's origin is reproducible rather than opaque.
#
# Run with the Python that has numpy and onnx (/usr/bin/python3 on Debian) after a release build:
#   /usr/bin/python3 tests/fuzz/make_seeds.py [--kiln build/release/bin/kiln]
# Inputs that once crashed a fuzzer (named regression_*) are kept as they are.
import argparse
import io
import os
import pathlib
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
NODE = pathlib.Path("/usr/share/libonnx-testdata/data/node")
MAX_SEED = 64 * 1024

# Node tests whose models kiln imports (and a few it rejects, for the error paths): one per op
# family, so the importer, type inference and constant folding all start from real models.
MODELS = [
    "test_add_bcast", "test_conv_with_strides_padding", "test_convtranspose",
    "test_maxpool_2d_pads", "test_averagepool_2d_pads", "test_batchnorm_example",
    "test_gemm_default_matrix_bias", "test_matmul_2d", "test_reshape_reordered_all_dims",
    "test_expand_dim_changed", "test_constantofshape_int_zeros", "test_slice_neg_steps",
    "test_gather_0", "test_concat_2d_axis_0", "test_transpose_default", "test_softmax_axis_1",
    "test_shape", "test_cast_FLOAT_to_DOUBLE", "test_where_example", "test_unsqueeze_axis_0",
    "test_reduce_sum_keepdims_example", "test_clip", "test_split_equal_parts_1d",
    "test_constant_pad", "test_tile", "test_constant", "test_layer_normalization_2d_axis0",
    "test_resize_upsample_scales_nearest", "test_nonmaxsuppression_center_point_box_format",
    # control flow, ONNX functions (expanded or not), sequences, optionals and strings
    "test_if", "test_if_seq", "test_if_opt", "test_loop11", "test_loop13_seq",
    "test_loop16_seq_none", "test_scan9_sum", "test_scan_sum", "test_layer_normalization_2d_axis0",
    "test_sce_mean", "test_range_float_type_positive_delta_expanded", "test_celu_expanded",
    "test_sequence_insert_at_back", "test_identity_sequence", "test_optional_get_element_sequence",
    "test_optional_has_element_empty", "test_identity_opt", "test_cast_FLOAT_to_STRING",
    "test_strnormalizer_export_monday_casesensintive_lower", "test_training_dropout_zero_ratio",
]
# TensorProto files of many element types and ranks.
TENSORS = [
    "test_add_bcast", "test_add_uint8", "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT_to_FLOAT16",
    "test_and2d", "test_gather_0", "test_constantofshape_int_zeros", "test_range_int32_type_negative_delta",
    "test_reshape_reordered_all_dims", "test_where_example", "test_mod_int64_fmod", "test_size",
    "test_bitshift_right_uint16", "test_cast_FLOAT_to_STRING", "test_equal_bcast",
    "test_cast_STRING_to_FLOAT", "test_strnormalizer_nostopwords_nochangecase",
]
# SequenceProto and OptionalProto files of the test data.
LISTS = [
    "test_sequence_insert_at_back", "test_sequence_insert_at_front", "test_identity_sequence",
    "test_optional_get_element", "test_optional_get_element_sequence",
    "test_optional_has_element", "test_optional_has_element_empty", "test_identity_opt",
    "test_loop13_seq", "test_loop16_seq_none", "test_if_seq", "test_if_opt",
]
# Models compiled with kiln for loop IR and artifact containers.
COMPILED = ["test_add_bcast", "test_conv_with_strides_padding", "test_maxpool_2d_pads",
            "test_softmax_axis_1", "test_matmul_2d", "test_gemm_default_matrix_bias",
            "test_batchnorm_example", "test_transpose_default", "test_concat_2d_axis_0",
            "test_reduce_mean_default_axes_keepdims_example",
            # control flow bodies, sequences and strings in the container's metadata
            "test_loop11", "test_if_seq", "test_sequence_insert_at_back",
            "test_cast_FLOAT_to_STRING"]


def reset(name):
    folder = CORPUS / name
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if not f.name.startswith("regression_"):
            f.unlink()
    return folder


def put(folder, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        print(f"skipping {folder.name}/{name}: {len(data)} bytes")
        return
    (folder / name).write_bytes(data)


def onnx_seeds():
    folder = reset("onnx_import")
    for test in MODELS:
        put(folder, test + ".onnx", (NODE / test / "model.onnx").read_bytes())
    put(folder, "conv_with_weights.onnx", weighted_model().SerializeToString())
    for name, model in edge_models().items():
        put(folder, f"edge_{name}.onnx", model.SerializeToString())
    put(folder, "external_data.onnx", external_data_model().SerializeToString())


def external_data_model():
    """Weights kept in a file beside the model (TensorProto.EXTERNAL): the importer must refuse
    locations outside the model's folder and files that are missing or short."""
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "0"), ("length", "64")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "ext",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def edge_models():
    """Constant inputs at the edges of what the importer folds and infers: huge, negative, zero."""
    def i64(name, v):
        return numpy_helper.from_array(np.array(v, dtype=np.int64), name)

    def f32(name, v):
        return numpy_helper.from_array(np.array(v, dtype=np.float32), name)

    def model(nodes, inits, out_type=TensorProto.FLOAT, inputs=()):
        graph = helper.make_graph(nodes, "edge", list(inputs),
                                  [helper.make_tensor_value_info("y", out_type, None)], inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

    def unary(op, inits, attrs=None, inputs=(), out_type=TensorProto.FLOAT, names=None):
        after = "Relu" if out_type == TensorProto.FLOAT else "Neg"
        node = helper.make_node(op, names or [i.name for i in inputs] + [t.name for t in inits],
                                ["c"], **(attrs or {}))
        return model([node, helper.make_node(after, ["c"], ["y"])], inits, out_type, inputs)

    x = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])]
    w = f32("w", np.ones((1, 1, 1, 1)))
    big, int64 = 2**62, TensorProto.INT64
    return {
        "constantofshape_huge": unary("ConstantOfShape", [i64("s", [100000, 100000])]),
        "expand_huge": unary("Expand", [f32("v", [1.0]), i64("s", [10**6, 10**6])]),
        "range_huge": unary("Range", [i64("a", 0), i64("b", 10**13), i64("d", 1)],
                            out_type=int64),
        "range_zero_delta": unary("Range", [i64("a", 0), i64("b", 9), i64("d", 0)],
                                  out_type=int64),
        "div_min_by_minus_one": unary("Div", [i64("a", [-2**63]), i64("b", [-1])],
                                      out_type=int64),
        "mod_by_zero": unary("Mod", [i64("a", [5]), i64("b", [0])], out_type=int64),
        "gather_out_of_range": unary("Gather", [i64("d", [1, 2, 3]), i64("i", [-2**63])],
                                     out_type=int64),
        "reshape_two_minus_ones": unary("Reshape", [i64("s", [-1, -1])], inputs=x),
        "slice_extreme": unary("Slice", [i64("st", [-2**63]), i64("en", [2**63 - 1]),
                                         i64("ax", [1]), i64("sp", [-2**63])], inputs=x),
        "unsqueeze_huge_axis": unary("Unsqueeze", [i64("a", [big])], inputs=x),
        "tile_huge": unary("Tile", [i64("r", [1, 1, big, big])], inputs=x),
        "conv_zero_stride": unary("Conv", [w], {"strides": [0, 0]}, inputs=x),
        "conv_huge_pads": unary("Conv", [w], {"pads": [big] * 4}, inputs=x),
        "maxpool_zero_kernel": unary("MaxPool", [], {"kernel_shape": [0, 0]}, inputs=x),
        "resize_huge_scales": unary("Resize", [f32("sc", [1, 1, 1e30, 1e30])], inputs=x,
                                    names=["x", "", "sc"]),
        "cast_float_to_int": unary("Cast", [f32("a", [1e30, float("nan"), -float("inf")])],
                                   {"to": int64}, out_type=int64),
    }


def weighted_model():
    """A model whose weights are initializers, so its artifact carries params."""
    w = numpy_helper.from_array(np.linspace(-1, 1, 2 * 3 * 3 * 3, dtype=np.float32)
                                .reshape(2, 3, 3, 3), "w")
    b = numpy_helper.from_array(np.array([0.5, -0.5], dtype=np.float32), "b")
    shape = numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Reshape", ["r", "shape"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "weighted", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])], [w, b, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def tensor_seeds():
    folder = reset("tensor_proto")
    for test in TENSORS:
        for pb in sorted((NODE / test / "test_data_set_0").glob("input_*.pb"))[:2]:
            put(folder, f"{test}_{pb.name}", pb.read_bytes())
    typed = helper.make_tensor("typed", TensorProto.FLOAT, [2, 3], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    put(folder, "float_data.pb", typed.SerializeToString())
    ints = helper.make_tensor("ints", TensorProto.INT32, [3], [1, -2, 3])
    put(folder, "int32_data.pb", ints.SerializeToString())
    external = helper.make_tensor("ext", TensorProto.FLOAT, [2], [0.0, 1.0])
    external.data_location = TensorProto.EXTERNAL
    external.ClearField("float_data")
    entry = external.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    put(folder, "external.pb", external.SerializeToString())


def npy_bytes(array, version=None):
    out = io.BytesIO()
    if version is None:
        np.save(out, array, allow_pickle=True)
    else:
        np.lib.format.write_array(out, array, version=version, allow_pickle=True)
    return out.getvalue()


def array_set():
    return {
        "f32_2x3": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64_scalar": np.array(3.25),
        "f16_4": np.array([0.5, -1, 65504, 1e-3], dtype=np.float16),
        "i8_3": np.array([-128, 0, 127], dtype=np.int8),
        "i16_2x2": np.array([[1, -2], [3, -4]], dtype=np.int16),
        "i32_5": np.arange(5, dtype=np.int32),
        "i64_1x1x2": np.array([[[1, -1]]], dtype=np.int64),
        "u8_4": np.array([0, 1, 254, 255], dtype=np.uint8),
        "u16_2": np.array([1, 65535], dtype=np.uint16),
        "u32_2": np.array([1, 4294967295], dtype=np.uint32),
        "u64_1": np.array([2**63], dtype=np.uint64),
        "bool_3": np.array([True, False, True]),
        "empty_0x3": np.zeros((0, 3), dtype=np.float32),
    }


def npy_seeds():
    folder = reset("npy")
    for name, array in array_set().items():
        put(folder, name + ".npy", npy_bytes(array))
    a = np.arange(4, dtype=np.float32)
    put(folder, "version2.npy", npy_bytes(a, (2, 0)))
    put(folder, "version3.npy", npy_bytes(a, (3, 0)))
    put(folder, "big_endian.npy", npy_bytes(a.astype(">f4")))
    put(folder, "fortran.npy", npy_bytes(np.asfortranarray(np.arange(6.0).reshape(2, 3))))
    put(folder, "object.npy", npy_bytes(np.array([1, "a"], dtype=object)))
    put(folder, "complex.npy", npy_bytes(np.array([1 + 2j], dtype=np.complex64)))


def npz_seeds():
    folder = reset("npz")
    arrays = array_set()
    for name, compressed in (("stored", False), ("deflated", True)):
        out = io.BytesIO()
        (np.savez_compressed if compressed else np.savez)(out, **arrays)
        put(folder, name + ".npz", out.getvalue())
    for name, array in list(arrays.items())[:6]:
        out = io.BytesIO()
        np.savez_compressed(out, **{name: array})
        put(folder, name + ".npz", out.getvalue())
    out = io.BytesIO()
    np.savez(out)
    put(folder, "empty.npz", out.getvalue())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:  # a method kiln refuses; a fixed date keeps it stable
        z.writestr(zipfile.ZipInfo("x.npy", date_time=(2020, 1, 1, 0, 0, 0)),
                   npy_bytes(np.arange(3)), compress_type=zipfile.ZIP_BZIP2)
    put(folder, "bzip2.npz", out.getvalue())
    zip64 = zip64_npz("x.npy", npy_bytes(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert np.load(io.BytesIO(zip64))["x"].shape == (2, 3)
    put(folder, "zip64.npz", zip64)


def zip64_npz(name, payload):
    """A stored entry written the ZIP64 way (numpy does so from 2 GiB on): every size and offset
    saturated, the real ones in ZIP64 extra fields, a ZIP64 end record and its locator."""
    crc, n, full = zlib.crc32(payload), len(payload), 0xFFFFFFFF
    fname = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc, full, full,
                        len(fname), 20) + fname + struct.pack("<HHQQ", 1, 16, n, n)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0x21, crc, full,
                          full, len(fname), 28, 0, 0, 0, 0, full) + fname + \
        struct.pack("<HHQQQ", 1, 24, n, n, 0)
    data = local + payload
    zip64_end = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central),
                            len(data))
    locator = struct.pack("<IIQI", 0x07064B50, 0, len(data) + len(central), 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, full, full, 0)
    return data + central + zip64_end + locator + end


def split_golden(path):
    """The sections of a golden file after `// before` and `// after` lines."""
    sections, current = [], None
    for line in path.read_text().splitlines(keepends=True):
        if line.strip() in ("// before", "// after"):
            current = []
            sections.append(current)
        elif current is not None:
            current.append(line)
    return ["".join(s) for s in sections]


def artifact_length(data, at):
    """Where the artifact container starting at AT ends (artifact.cc documents the layout)."""
    def u32(p):
        return struct.unpack_from("<I", data, p)[0]
    p = at + 12
    p += 4 + u32(p)  # producer
    p += 4 + u32(p)  # target
    count, p = u32(p), p + 4
    for _ in range(count):
        for _ in range(4):  # name, executor, signature, metadata
            p += 4 + u32(p)
        external = data[p]
        size = struct.unpack_from("<Q", data, p + 9)[0]  # after placement and checksum
        p += 17
        p += (64 - (p - at) % 64) % 64  # the params start 64-byte aligned
        p += 0 if external else size
    return p - at


def compiled_seeds(kiln):
    ir = reset("ir_text")
    tir = reset("tir_text")
    artifacts = reset("artifact")
    for path in sorted((ROOT / "tests" / "golden").glob("*/*.ir")):
        sections = split_golden(path)
        stem = f"{path.parent.name}_{path.stem}"
        if path.parent.name == "kernels":
            put(ir, stem + "_before.ir", sections[0])
            put(tir, stem + ".tir", sections[1])
        else:  # every pass's input; the annotated outputs of fusion (#group) once
            put(ir, stem + "_before.ir", sections[0])
            if path.parent.name == "fuse-ops":
                put(ir, stem + "_after.ir", sections[1])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        weighted = tmp / "weighted.onnx"
        weighted.write_bytes(weighted_model().SerializeToString())
        models = [(t, NODE / t / "model.onnx") for t in COMPILED] + [("weighted", weighted)]
        for name, model in models:
            lib, dump = tmp / (name + ".so"), tmp / name
            subprocess.run([kiln, "compile", str(model), "-o", str(lib), "--dump-ir", str(dump)],
                           check=True, stdout=subprocess.DEVNULL)
            put(ir, f"{name}_input.ir", (dump / "00-input.ir").read_text())
            kernels = re.split(r"\n(?=kernel )", (dump / "kernels.tir").read_text())
            for i, kernel in enumerate(kernels[:3]):
                put(tir, f"{name}_{i}.tir", kernel)
            data = lib.read_bytes()
            at = data.index(b"KILNARTF")
            put(artifacts, name + ".kart", data[at:at + artifact_length(data, at)])
            if name in (COMPILED[0], "weighted"):  # whole sealed files, for the ELF checks
                put(artifacts, name + ".elf", data)
    put(artifacts, "magic_only.kart", b"KILNARTF")


# The RPC wire format (docs/rpc.md): little-endian integers, text as a u64 length and its bytes.
def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def text(s):
    s = s.encode() if isinstance(s, str) else s
    return u64(len(s)) + s


def wire_tensor(array, code=None):
    codes = {"f": 2, "i": 0, "u": 1, "b": 6}
    head = bytes([codes[array.dtype.kind] if code is None else code, array.dtype.itemsize * 8])
    head += u32(1) + u32(array.ndim) + b"".join(u64(d) for d in array.shape)
    return head + u64(array.nbytes) + array.tobytes()


def rpc_session_seeds():
    """Requests after the handshake (the fuzzer adds it): each op, values of every type code, and
    the frames the server must refuse (lengths past the end, unknown codes, bad flags)."""
    folder = reset("rpc_session")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    strings = u32(6) + bytes([129, 0]) + u32(1) + u32(1) + u64(2) + u64(8 + 1 + 8 + 2) + \
        text("a") + text("bc")
    values = {
        "none": u32(0), "int": u32(1) + u64(42), "float": u32(2) + struct.pack("<d", 1.5),
        "bool": u32(3) + b"\x01", "string": u32(4) + text("hi"), "bytes": u32(5) + text(b"\0\1"),
        "tensor": u32(6) + wire_tensor(a), "int_tensor": u32(6) + wire_tensor(a.astype(np.int64)),
        "strings": strings, "device": u32(7) + u32(1) + u32(0),
        "dtype": u32(8) + bytes([2, 32]) + u32(1), "json": u32(9) + text('{"a":[1,2]}'),
        "module": u32(10) + u64(1) + text("library"), "function": u32(11) + u64(2),
        "remote_tensor": u32(12) + u64(3),
        "list": u32(13) + b"\x00" + u64(2) + wire_tensor(a) + wire_tensor(a),
        "none_optional": u32(13) + b"\x01" + u64(0),
    }
    for name, value in values.items():
        put(folder, f"echo_{name}", u32(14) + value + u32(1))
    close = u32(1)
    put(folder, "info_list_close", u32(2) + u32(5) + close)
    put(folder, "upload_list_remove", u32(3) + text("dir/a.bin") + u64(4) + b"abcd" + u32(5) +
        u32(4) + text("dir/a.bin") + close)
    put(folder, "upload_refused_path", u32(3) + text("../x") + u64(2) + b"xy" + close)
    put(folder, "load_missing", u32(6) + text("model.so") + close)
    put(folder, "load_garbage", u32(3) + text("m.so") + u64(8) + b"\x7fELFjunk" + u32(6) +
        text("m.so") + close)
    put(folder, "get_function_no_module", u32(7) + u64(5) + text("run") + close)
    put(folder, "call_no_function", u32(8) + u64(9) + u32(2) + u32(1) + u64(1) +
        u32(6) + wire_tensor(a) + close)
    put(folder, "alloc_copy_free", u32(10) + u32(9) + text('{"shape":[2,3],"dtype":"float32"}') +
        u32(11) + u64(1) + wire_tensor(a) + u32(12) + u64(1) + u32(9) + u64(1) + u32(9) +
        u64(1) + close)
    put(folder, "alloc_rank_40", u32(10) + u32(9) + text('{"shape":[' + ",".join(["1"] * 40) +
                                                        '],"dtype":"float32"}') + close)
    put(folder, "free_never_issued", u32(9) + u64(0) + u32(9) + u64(77) + close)
    put(folder, "time_evaluator_no_module", u32(13) + u64(1) + text("run") + u32(3) + u32(1) +
        u32(0) + close)
    put(folder, "unknown_op", u32(99) + close)
    put(folder, "unknown_type_code", u32(14) + u32(77))
    put(folder, "bad_bool_byte", u32(14) + u32(3) + b"\x07")
    put(folder, "unknown_dtype_code", u32(14) + u32(6) + bytes([77, 32]) + u32(1) + u32(0) + u64(4)
        + b"abcd")
    put(folder, "tensor_length_past_end", u32(14) + u32(6) + bytes([2, 32]) + u32(1) + u32(1) +
        u64(1 << 20) + u64(4 << 20) + b"\0" * 64)
    put(folder, "text_length_past_end", u32(14) + u32(4) + u64(1 << 40) + b"abc")
    put(folder, "huge_list", u32(14) + u32(13) + b"\x00" + u64(1 << 30))


def list_seeds():
    """Sequence and optional values as the test data stores them (input_N.pb, output_N.pb)."""
    folder = reset("list_proto")
    for test in LISTS:
        for f in sorted((NODE / test / "test_data_set_0").glob("*.pb")):
            put(folder, f"{test}_{f.stem}.pb", f.read_bytes())


def schedule_seeds():
    """Schedule files and tuning records as kiln writes and users edit them."""
    folder = reset("schedule_file")
    key = ("kiln.MatMulPacked(float32[128,256],float32[64,256,16])->float32[128,1024]"
           "{block=16,n=1024}@avx512x16")
    put(folder, "lines.jsonl", "\n".join([
        '{"workload": "%s", "knobs": {"tile_m": 6, "tile_n": 2}, "ranges": {"tile_m": [1, 14]}}' % key,
        '{"workload": "kiln.Conv(float32[1,3,224,224])@avx2x8", "knobs": {"oc_block": 8}}']))
    put(folder, "array.json", '[{"workload": "%s", "knobs": {"tile_m": 4}}]' % key)
    put(folder, "bad_knob.jsonl", '{"workload": "k", "knobs": {"tile_m": "six"}}')
    put(folder, "not_json.jsonl", '{"workload": "k", "knobs": {"tile_m": 6}\n}{')


def config_seeds():
    """--config files: one object per subcommand, nested for rpc."""
    folder = reset("config_file")
    put(folder, "compile.json", '{"compile": {"opt-level": 2, "executor": "aot", '
                                '"input-shapes": "x:[1,3]"}}')
    put(folder, "run.json", '{"run": {"repeat": 5, "threads": 2, "print-time": true}}')
    put(folder, "rpc.json", '{"rpc": {"server": {"port": 9000}, "tracker": {"port": 0}}}')
    put(folder, "unknown.json", '{"compile": {"no-such-option": 1}, "fly": {}}')
    put(folder, "array.json", '{"compile": {"model-name": ["a", "b"]}}')


def extension_seeds():
    """Registrations as bytes (extension_abi_fuzzer.cc reads them field by field): a well-formed
    backend, and ones with each kind of fault."""
    folder = reset("extension_abi")

    def t(value):
        value = value.encode()
        return bytes([len(value)]) + value

    def backend(name="accel", attrs=((b"tile", 2, b"4", b"Rows of the tile"),),
                patterns=((b"conv_relu", b"Conv Add? Relu"),), flags=0):
        out = bytes([len(attrs)])
        for a_name, a_type, a_default, a_help in attrs:
            out += bytes([len(a_name)]) + a_name + bytes([a_type + 1]) + bytes([len(a_default)]) + \
                a_default + bytes([len(a_help)]) + a_help
        out += bytes([len(patterns)])
        for p_name, chain in patterns:
            out += bytes([len(p_name)]) + p_name + bytes([len(chain)]) + chain
        return out + bytes([0, flags]) + t(name) + t("An accelerator")

    put(folder, "one_backend", bytes([0, 0]) + backend() + b"\0")
    put(folder, "two_backends", bytes([0, 1]) + backend("a") + backend("b") + b"\0")
    put(folder, "same_name_twice", bytes([0, 1]) + backend("a") + backend("a") + b"\0")
    put(folder, "bad_default", bytes([0, 0]) + backend(attrs=((b"tile", 2, b"four", b"h"),)))
    put(folder, "bad_chain", bytes([0, 0]) + backend(patterns=((b"p", b"Conv ?? |"),)))
    put(folder, "null_attrs", bytes([0, 0]) + backend(flags=2))
    put(folder, "no_compile", bytes([0, 0]) + backend(flags=8))
    put(folder, "llvm", bytes([0, 0]) + backend(name="llvm"))
    put(folder, "other_version", bytes([251, 0]) + backend())
    put(folder, "set_error", bytes([0, 0]) + backend() + b"\xee" + t("driver missing"))


def tracker_seeds():
    """Tracker messages as JSON: registrations, events and requests, good and out of range."""
    folder = reset("tracker_messages")
    put(folder, "registration", '{"key":"rpi4","host":"0.0.0.0","port":9091,"busy":false}')
    put(folder, "registration_ipv6", '{"key":"x86_64-avx512","host":"[::1]","port":1,"busy":true}')
    put(folder, "registration_bad_port", '{"key":"k","host":"h","port":70000,"busy":false}')
    put(folder, "registration_newline_key", '{"key":"a\\nb\\u001b[31m","host":"h","port":5,"busy":0}')
    put(folder, "event", '{"busy":true}')
    put(folder, "request", '{"key":"rpi4","priority":3,"timeout_ms":60000,"waited_ms":0}')
    put(folder, "request_huge_priority",
        '{"key":"rpi4","priority":1e300,"timeout_ms":-1,"waited_ms":9223372036854775807}')
    put(folder, "not_an_object", '[1,"two",{"three":null}]')


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kiln", default=str(ROOT / "build" / "release" / "bin" / "kiln"))
    args = parser.parse_args()
    onnx_seeds()
    tensor_seeds()
    npy_seeds()
    npz_seeds()
    rpc_session_seeds()
    tracker_seeds()
    list_seeds()
    schedule_seeds()
    config_seeds()
    extension_seeds()
    compiled_seeds(args.kiln)
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        print(f"{folder.name}: {len(files)} files, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
