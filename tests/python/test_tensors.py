"""Tensors between kiln, NumPy and PyTorch: copies for every dtype, zero-copy views and DLPack in
both directions, strings, bfloat16, and zero-copy binding to an executor."""
import ctypes
import gc
import weakref

import numpy as np
import pytest
import torch

import kiln
from onnx_models import two_input_model

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip_of_every_dtype(dtype):
    source = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    t = kiln.array(source)
    assert t.shape == (2, 3, 4) and t.dtype == dtype and t.size == 24
    assert t.nbytes == source.nbytes and t.data_ptr % 64 == 0
    back = t.numpy()
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back, source)
    original = source.copy()
    source[...] = np.logical_not(source) if dtype == "bool" else source + 1
    np.testing.assert_array_equal(t.numpy(), original)  # kiln.array copied


def test_array_converts_and_takes_lists():
    t = kiln.array([[1, 2], [3, 4]], dtype="float32")
    assert t.dtype == "float32"
    np.testing.assert_array_equal(t.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    scalar = kiln.array(3.5)
    assert scalar.shape == () and scalar.numpy() == 3.5
    strided = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(kiln.array(strided).numpy(), strided)
    with pytest.raises(kiln.KilnError, match="no kiln element type"):
        kiln.array(np.zeros(3, np.complex64))
    with pytest.raises(kiln.KilnError, match="not one kiln has"):
        kiln.from_dlpack(np.zeros(3, np.complex64))
    numbers = kiln.array(np.array([1.0, 2.5], dtype=object))  # objects holding numbers
    assert numbers.dtype == "float64" and numbers.numpy().tolist() == [1.0, 2.5]
    assert kiln.array([1, 2], dtype=np.float16).dtype == "float16"  # NumPy dtypes name types
    assert kiln.empty([2], np.int32).dtype == "int32"
    assert kiln.DataType(np.uint8) == kiln.DataType("uint8") and kiln.cpu() != None  # noqa


def test_numpy_views_kiln_memory_without_a_copy():
    t = kiln.empty([4, 4], "float32")
    view = np.asarray(t)
    assert view.__array_interface__["data"][0] == t.data_ptr
    view[:] = 7
    np.testing.assert_array_equal(t.numpy(), np.full((4, 4), 7, np.float32))
    t.copyfrom(np.eye(4, dtype=np.float32))
    np.testing.assert_array_equal(view, np.eye(4))
    assert np.from_dlpack(t).__array_interface__["data"][0] == t.data_ptr


def test_dlpack_from_torch_and_numpy_shares_memory():
    source = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = kiln.from_dlpack(source)
    assert t.data_ptr == source.data_ptr() and t.shape == (2, 3)
    source[1, 2] = -1
    assert t.numpy()[1, 2] == -1
    array = np.arange(5, dtype=np.int64)
    shared = kiln.from_dlpack(array)
    assert shared.data_ptr == array.__array_interface__["data"][0]
    alive = weakref.ref(array)
    del array
    assert alive() is not None  # the kiln tensor keeps NumPy's array alive ...
    np.testing.assert_array_equal(shared.numpy(), np.arange(5))
    del shared
    gc.collect()
    assert alive() is None  # ... and lets go of it with its last reference


def test_dlpack_to_torch_shares_memory():
    t = kiln.array(np.zeros((3, 2), np.float32))
    view = torch.from_dlpack(t)
    assert view.data_ptr() == t.data_ptr and tuple(view.shape) == (3, 2)
    view += 2
    np.testing.assert_array_equal(t.numpy(), np.full((3, 2), 2, np.float32))
    assert t.__dlpack_device__() == (1, 0)
    copied = torch.from_dlpack(t.__dlpack__(copy=True))
    assert copied.data_ptr() != t.data_ptr
    np.testing.assert_array_equal(copied.numpy(), t.numpy())


def test_strided_tensors_are_refused_for_sharing_but_copied_by_array():
    transposed = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()
    with pytest.raises(kiln.KilnError, match="compact row-major"):
        kiln.from_dlpack(transposed)
    np.testing.assert_array_equal(kiln.array(transposed).numpy(), transposed.numpy())


def test_strings_and_bfloat16():
    words = kiln.array(np.array([["a", "bc"], ["déf", ""]]))
    assert words.dtype == "string" and words.shape == (2, 2)
    assert words.numpy().tolist() == [["a", "bc"], ["déf", ""]]
    with pytest.raises(BufferError):
        memoryview(words)
    np.testing.assert_array_equal(np.asarray(words), words.numpy())
    halves = kiln.array([1.5, -2.25, 3.0], dtype="bfloat16")
    assert halves.dtype == "bfloat16" and halves.nbytes == 6
    np.testing.assert_array_equal(halves.numpy(), np.array([1.5, -2.25, 3.0], np.float32))
    # Rounded once, to nearest even: 1 + 2^-8 + 2^-30 is above the tie between 1 and 1 + 2^-7
    # (rounding through float32 first would land on the tie and go down to 1).
    nearest = kiln.array([1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-8, 1e39], dtype="bfloat16")
    assert nearest.numpy().tolist() == [1.0078125, 1.0, float("inf")]


def test_the_buffer_protocol_gives_c_order_only():
    t = kiln.empty([2, 3], "float32")
    view = (ctypes.c_char * 256)()  # room for a Py_buffer
    get, release = ctypes.pythonapi.PyObject_GetBuffer, ctypes.pythonapi.PyBuffer_Release
    get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    release.argtypes = [ctypes.c_void_p]
    c_contiguous, f_contiguous = 0x0020 | 0x0018, 0x0040 | 0x0018
    assert get(t, ctypes.addressof(view), c_contiguous) == 0
    release(ctypes.addressof(view))
    with pytest.raises(BufferError, match="not Fortran"):
        get(t, ctypes.addressof(view), f_contiguous)
    assert get(kiln.empty([1, 3]), ctypes.addressof(view), f_contiguous) == 0  # one long dim
    release(ctypes.addressof(view))


def test_zero_copy_inputs_and_outputs():
    ex = kiln.compile(two_input_model())["default"](kiln.cpu())
    a, b = kiln.array(np.array([1, 2, 3], np.float32)), kiln.empty([3])
    out = kiln.empty([3])
    ex.set_input_zero_copy("a", a)
    ex.set_input_zero_copy("b", b)
    ex.set_output_zero_copy(0, out)
    np.asarray(b)[:] = [10, 20, 30]  # written after binding: the executor reads it in place
    ex.run()
    np.testing.assert_array_equal(out.numpy(), [11, 22, 33])
    misaligned = kiln.from_dlpack(np.zeros(4, np.float32)[1:])
    with pytest.raises(kiln.KilnError, match="aligned"):
        ex.set_input_zero_copy("a", misaligned)
    with pytest.raises(kiln.KilnError, match="float32\\[3\\]"):
        ex.set_input_zero_copy("a", kiln.empty([4]))
    # What cannot be shared is refused rather than bound as a copy the caller never sees.
    with pytest.raises(kiln.KilnError, match="set_input_zero_copy.*not a C-contiguous"):
        ex.set_input_zero_copy("a", np.zeros(6, np.float32)[::2])
    with pytest.raises(kiln.KilnError, match="set_output_zero_copy.*compact row-major"):
        ex.set_output_zero_copy(1, torch.zeros(3, 2).t()[0])
    with pytest.raises(kiln.KilnError, match="get_output.*not a C-contiguous"):
        ex.get_output(0, np.zeros((3, 2), np.float32)[:, 0])
    landed = np.zeros(3, np.float32)
    assert ex.get_output(1, landed).data_ptr == landed.__array_interface__["data"][0]
    np.testing.assert_array_equal(landed, [10, 40, 90])
