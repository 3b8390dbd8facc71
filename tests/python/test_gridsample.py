"""ONNX GridSample (opset 16) through the Python Builder (aiOnnxOpset16.gridsample) against
torch.nn.functional.grid_sample on random inputs: every mode x padding_mode x align_corners, grid
points inside and outside [-1, 1], FLOAT and DOUBLE, several batches and channels; the errors."""
import itertools

import numpy as np
import pytest
import torch

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def grid_sample(popart, x, grid, **attrs):
    b = popart.Builder(opsets={"ai.onnx": 16, "ai.graphcore": 1})
    ids = [b.addInputTensor(popart.TensorInfo(a)) for a in (x, grid)]
    y = b.aiOnnxOpset16.gridsample(ids, **attrs)
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, (x, grid))), a))
    return a[y]


def torch_ref(x, grid, mode, padding_mode, align_corners):
    """PyTorch in double on the same (exactly widened) values."""
    return torch.nn.functional.grid_sample(torch.tensor(x, dtype=torch.float64), torch.tensor(grid, dtype=torch.float64),
                                           mode=mode, padding_mode=padding_mode,
                                           align_corners=bool(align_corners)).numpy()


def random_case(seed, dtype, n=2, c=3, h=5, w=7, ho=4, wo=6):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    grid = rng.uniform(-1.8, 1.8, (n, ho, wo, 2)).astype(dtype)  # about half of the points outside
    grid[0, 0, 0] = [-1, 1]  # the corners exactly
    grid[-1, -1, -1] = [1, -1]
    grid[0, 1, :3] = [[-4.3, 0.2], [0.1, 5.9], [-7.7, -3.1]]  # far outside: reflected several times
    return x, grid


@pytest.mark.parametrize("mode,padding_mode,align_corners", list(itertools.product(MODES, PADDINGS, [0, 1])))
def test_gridsample_matches_torch(popart, mode, padding_mode, align_corners):
    seed = 100 * MODES.index(mode) + 10 * PADDINGS.index(padding_mode) + align_corners
    for dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        x, grid = random_case(seed, dtype)
        y = grid_sample(popart, x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        assert y.dtype == dtype and y.shape == (2, 3, 4, 6)
        np.testing.assert_allclose(y, torch_ref(x, grid, mode, padding_mode, align_corners), rtol=tol, atol=tol)


def test_gridsample_defaults_are_bilinear_zeros_without_align_corners(popart):
    x, grid = random_case(7, np.float32, n=1, c=2, h=3, w=4, ho=2, wo=3)
    np.testing.assert_allclose(grid_sample(popart, x, grid), torch_ref(x, grid, "bilinear", "zeros", 0), rtol=1e-5,
                               atol=1e-5)


def test_gridsample_upsamples_like_affine_grid(popart):
    # An identity affine grid at twice the size: bicubic / bilinear upsampling as PyTorch's.
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 5)).astype(np.float32)
    for align_corners in (0, 1):
        theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64)
        grid = torch.nn.functional.affine_grid(theta, (1, 2, 8, 10), align_corners=bool(align_corners))
        grid = grid.numpy().astype(np.float32)
        for mode in ("bilinear", "bicubic"):
            y = grid_sample(popart, x, grid, mode=mode, padding_mode="border", align_corners=align_corners)
            np.testing.assert_allclose(y, torch_ref(x, grid, mode, "border", align_corners), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("attrs,grid_shape,message", [
    ({"mode": "linear"}, (1, 2, 2, 2), "mode 'linear' is not supported"),
    ({"padding_mode": "wrap"}, (1, 2, 2, 2), "padding_mode 'wrap' is not supported"),
    ({"align_corners": 3}, (1, 2, 2, 2), "align_corners = 3 must be 0 or 1"),
    ({}, (1, 2, 2, 3), r"must be \[N, H_out, W_out, 2\]"),
])
def test_gridsample_errors(popart, attrs, grid_shape, message):
    b = popart.Builder(opsets={"ai.onnx": 16, "ai.graphcore": 1})
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 1, 3, 3]))
    g = b.addInputTensor(popart.TensorInfo("FLOAT", list(grid_shape)))
    y = b.aiOnnxOpset16.gridsample([x, g], **attrs)
    b.addOutputTensor(y)
    with pytest.raises(popart.popart_exception, match=message):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())
