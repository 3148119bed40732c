"""The GIL is released while kiln runs and compiles: two Python threads run two executors at the
same time, a thread keeps running while another compiles, and one executor shared by two threads
gives each its own results."""
import threading
import time

import numpy as np

import kiln
from kiln import _kiln
from onnx_models import conv_stack_model, wide_matmul_model


def overlapping(first, second):
    """The number of intervals of FIRST that overlap one of SECOND."""
    return sum(any(a0 < b1 and b0 < a1 for b0, b1 in second) for a0, a1 in first)


def test_two_threads_run_two_executors_at_once():
    model = wide_matmul_model()
    artifact = kiln.compile(model)
    weight = np.frombuffer(model.graph.initializer[0].raw_data, np.float32).reshape(512, 512)
    executors = [artifact["default"](kiln.cpu()) for _ in range(2)]
    inputs = [np.random.RandomState(i).rand(256, 512).astype(np.float32) for i in range(2)]
    intervals, results = [[], []], [None, None]
    start = threading.Barrier(2)

    def work(i):
        ex = executors[i]
        ex.set_input("x", inputs[i])
        start.wait()
        for _ in range(40):
            t0 = time.perf_counter()
            ex.run()  # the GIL is released: the other thread's Python code runs meanwhile
            intervals[i].append((t0, time.perf_counter()))
        results[i] = ex.get_output(0).numpy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Each interval was taken by a thread holding the GIL at both ends; had run() kept the GIL,
    # no interval of one thread could overlap one of the other.
    assert overlapping(intervals[0], intervals[1]) > 0, intervals
    for i in range(2):
        np.testing.assert_allclose(results[i], inputs[i] @ weight, rtol=1e-4, atol=1e-4)


def test_python_runs_while_kiln_compiles(tmp_path):
    entries = [("default", conv_stack_model().SerializeToString(), {})]
    window, ticks = [], []
    done = threading.Event()

    def compile_it():
        window.append(time.perf_counter())
        _kiln.compile_models(entries, str(tmp_path / "m.so"))  # one call: no Python inside
        window.append(time.perf_counter())
        done.set()

    thread = threading.Thread(target=compile_it)
    thread.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
    thread.join()
    begin, end = window
    inside = [t for t in ticks if begin < t < end]
    # Had the compiler held the GIL, this thread could only have ticked in the few milliseconds
    # before the call got going; it ticked throughout.
    assert end - begin > 0.05, f"the model compiled in {end - begin:.3f} s: too fast to tell"
    assert inside and inside[-1] - inside[0] > 0.5 * (end - begin), (begin, end, len(inside))


def test_one_executor_shared_by_two_threads_takes_turns():
    artifact = kiln.compile(wide_matmul_model(rows=8, width=64))
    ex, reference = artifact["default"](kiln.cpu()), artifact["default"](kiln.cpu())
    inputs = [np.full((8, 64), i + 1, np.float32) for i in range(2)]
    expected = [reference(x=x)[0] for x in inputs]
    failures = []

    def work(i):
        for _ in range(200):
            (y,) = ex(x=inputs[i])  # set_input, run and get_output under the executor's lock
            if not np.array_equal(y, expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
