# pytest suites of the ocr_tools package (`npm run test:python`; needs scripts/ci-deps.sh's PyTorch, onnx, numpy).
# pyproject.toml puts python/ on the import path, so the tests import ocr_tools like any caller.
import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    """Deterministic CPU arithmetic, and polite on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
