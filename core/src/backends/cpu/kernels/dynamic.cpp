// CPU kernels of the dynamic family: DynamicSlice / Update / Add / Zero at run-time offsets (read as
// Poplar's dynamicSlice reads them: unsigned, an offset past the end of an axis selects 0 and a
// slice running past the end wraps to the start), SequenceSlice and PackedDataBlock (its callback
// subgraph run once per batch of sequences).
#include <algorithm>
#include <cstring>
#include <memory>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/program.hpp"
#include "backends/cpu/strided.hpp"
#include "ops/dynamic_params.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

/// Element k of an integer (INT32 / UINT32 / INT64 / UINT64) tensor, as a signed value; unsigned
/// 64-bit values past INT64_MAX become negative, which every reader treats as out of range.
int64_t intAt(const void* p, DataType t, int64_t k) {
  switch (t) {
    case DataType::INT32:
      return static_cast<const int32_t*>(p)[k];
    case DataType::UINT32:
      return static_cast<const uint32_t*>(p)[k];
    case DataType::INT64:
      return static_cast<const int64_t*>(p)[k];
    case DataType::UINT64:
      return static_cast<int64_t>(static_cast<const uint64_t*>(p)[k]);
    default:
      break;
  }
  throw internal_error("intAt: {} is not an integer index type", dataTypeToString(t));
}

/// The runs of a dynamic slice: f(fullOffset, sliceOffset, n) for each run of n elements that are
/// consecutive in both the full tensor and the slice. `starts` holds each dimension's start (0 for
/// the dimensions taken whole); sliced dimensions wrap modulo their size.
struct SliceRuns {
  Shape full, slice;
  std::vector<bool> sliced;
  std::vector<int64_t> fullStrides, sliceStrides;
  size_t iterDims = 0;  // leading dimensions iterated; the rest form one run
  int64_t run = 1, count = 0;

  explicit SliceRuns(const ops::DynamicGeom& g) : full(g.full), slice(g.slice), sliced(g.full.size(), false) {
    for (auto a : g.axes) sliced[static_cast<size_t>(a)] = true;
    fullStrides = rowMajorStrides(full);
    sliceStrides = rowMajorStrides(slice);
    iterDims = full.size();
    while (iterDims > 0 && !sliced[iterDims - 1]) {
      run *= full[iterDims - 1];
      --iterDims;
    }
    count = 1;
    for (size_t d = 0; d < iterDims; ++d) count *= slice[d];
    if (run == 0) count = 0;
  }

  template <typename F>
  void forEach(const std::vector<int64_t>& starts, F f) const {
    std::vector<int64_t> pos(iterDims, 0);
    for (int64_t it = 0; it < count; ++it) {
      int64_t fo = 0, so = 0;
      for (size_t d = 0; d < iterDims; ++d) {
        const int64_t p = pos[d];
        fo += (sliced[d] ? (starts[d] + p) % full[d] : p) * fullStrides[d];
        so += p * sliceStrides[d];
      }
      f(fo, so, run);
      for (size_t d = iterDims; d-- > 0;) {
        if (++pos[d] < slice[d]) break;
        pos[d] = 0;
      }
    }
  }
};

/// Reads the offsets (one per axis of the geometry) into per-dimension starts.
std::vector<int64_t> readStarts(const ops::DynamicGeom& g, const void* offsets, DataType t) {
  std::vector<int64_t> starts(g.full.size(), 0);
  for (size_t i = 0; i < g.axes.size(); ++i) {
    const auto a = static_cast<size_t>(g.axes[i]);
    starts[a] = ops::dynamicStart(intAt(offsets, t, static_cast<int64_t>(i)), g.full[a]);
  }
  return starts;
}

enum class Mode { Update, Add, Zero };

/// DynamicUpdate / DynamicAdd / DynamicZero: y = x, then the slice region written, added to or
/// zeroed.
KernelFn modifyKernel(const Op& op, KernelContext& kc, Mode mode) {
  const ops::DynamicGeom g = ops::dynamicGeom(op, op.inShape(0));
  auto runs = std::make_shared<const SliceRuns>(g);
  const DataType offType = op.inType(1);
  const size_t bytes = static_cast<size_t>(op.inInfo(0).nbytes());
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), o = kc.in(1), u = mode == Mode::Zero ? -1 : kc.in(2), y = kc.out(0);
  auto copyIn = [=](const RunState& s) {
    if (s.slots[y] != s.slots[x] && bytes > 0) std::memcpy(s.slots[y], s.slots[x], bytes);
  };
  if (mode == Mode::Add) {
    return dispatchNumeric(op.inType(0), [&](auto tag) -> KernelFn {
      using T = decltype(tag);
      using C = compute_t<T>;
      return [=](const RunState& s) {
        copyIn(s);
        T* out = outPtr<T>(s, y);
        const T* v = inPtr<T>(s, u);
        runs->forEach(readStarts(g, s.slots[o], offType), [&](int64_t fo, int64_t so, int64_t n) {
          for (int64_t i = 0; i < n; ++i)
            out[fo + i] = static_cast<T>(static_cast<C>(out[fo + i]) + static_cast<C>(v[so + i]));
        });
      };
    });
  }
  return [=](const RunState& s) {
    copyIn(s);
    auto* out = static_cast<unsigned char*>(s.slots[y]);
    const auto* v = u >= 0 ? static_cast<const unsigned char*>(s.slots[u]) : nullptr;
    runs->forEach(readStarts(g, s.slots[o], offType), [&](int64_t fo, int64_t so, int64_t n) {
      if (v)
        std::memcpy(out + static_cast<size_t>(fo) * elem, v + static_cast<size_t>(so) * elem,
                    static_cast<size_t>(n) * elem);
      else
        std::memset(out + static_cast<size_t>(fo) * elem, 0, static_cast<size_t>(n) * elem);
    });
  };
}

}  // namespace

KernelFn makeCpuKernel_GcDynamicSlice(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const ops::DynamicGeom g = ops::dynamicGeom(op, op.inShape(0));
  auto runs = std::make_shared<const SliceRuns>(g);
  const DataType offType = op.inType(1);
  const size_t elem = elemSize(op, 0);
  const int x = kc.in(0), o = kc.in(1), y = kc.out(0);
  return [=](const RunState& s) {
    const auto* in = static_cast<const unsigned char*>(s.slots[x]);
    auto* out = static_cast<unsigned char*>(s.slots[y]);
    runs->forEach(readStarts(g, s.slots[o], offType), [&](int64_t fo, int64_t so, int64_t n) {
      std::memcpy(out + static_cast<size_t>(so) * elem, in + static_cast<size_t>(fo) * elem,
                  static_cast<size_t>(n) * elem);
    });
  };
}

KernelFn makeCpuKernel_GcDynamicUpdate(const Op& op, KernelContext& kc) {
  checkNotString(op);
  return modifyKernel(op, kc, Mode::Update);
}

KernelFn makeCpuKernel_GcDynamicAdd(const Op& op, KernelContext& kc) {
  return modifyKernel(op, kc, Mode::Add);
}

KernelFn makeCpuKernel_GcDynamicZero(const Op& op, KernelContext& kc) {
  checkNotString(op);
  return modifyKernel(op, kc, Mode::Zero);
}

/// y = destination; then for each i, N[i] rows of the source from sourceOffset[i] are copied to
/// the destination from destinationOffset[i] (rows outside either tensor are skipped; later
/// sequences win); with zeroUnused, the destination rows no sequence wrote are zeroed.
KernelFn makeCpuKernel_GcSequenceSlice(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const int64_t srcRows = op.inShape(0)[0], dstRows = op.inShape(1)[0];
  const int64_t n = op.inInfo(2).nelms();
  const size_t rowBytes = dstRows == 0 ? 0 : static_cast<size_t>(op.inInfo(1).nbytes()) / static_cast<size_t>(dstRows);
  const size_t bytes = static_cast<size_t>(op.inInfo(1).nbytes());
  const bool zeroUnused = op.attrs.getInt("zeroUnused", 0) != 0;
  const DataType tN = op.inType(2), tS = op.inType(3), tD = op.inType(4);
  const int src = kc.in(0), dst = kc.in(1), ni = kc.in(2), so = kc.in(3), dO = kc.in(4), y = kc.out(0);
  return [=](const RunState& s) {
    auto* out = static_cast<unsigned char*>(s.slots[y]);
    const auto* in = static_cast<const unsigned char*>(s.slots[src]);
    if (s.slots[y] != s.slots[dst] && bytes > 0) std::memcpy(out, s.slots[dst], bytes);
    std::vector<bool> written(zeroUnused ? static_cast<size_t>(dstRows) : 0, false);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t count = intAt(s.slots[ni], tN, i), s0 = intAt(s.slots[so], tS, i), d0 = intAt(s.slots[dO], tD, i);
      if (count <= 0 || s0 < 0 || d0 < 0) continue;
      for (int64_t r = 0; r < count && s0 + r < srcRows && d0 + r < dstRows; ++r) {
        std::memcpy(out + static_cast<size_t>(d0 + r) * rowBytes, in + static_cast<size_t>(s0 + r) * rowBytes,
                    rowBytes);
        if (zeroUnused) written[static_cast<size_t>(d0 + r)] = true;
      }
    }
    for (size_t r = 0; r < written.size(); ++r) {
      if (!written[r]) std::memset(out + r * rowBytes, 0, rowBytes);
    }
  };
}

// ---------------------------------------------------------------- PackedDataBlock

KernelFn makeCpuKernel_GcPackedDataBlock(const Op& op, KernelContext& kc) {
  checkNotString(op);
  const Graph& body = *op.subgraphs.at(0);
  auto prog = Program::forSubgraph(body);
  std::vector<std::pair<int, int>> implicit;  // (program slot, op slot)
  for (const auto& id : body.implicitInputIds) {
    int opIn = -1;
    for (int j = op.numFormalInputs; j < op.numInputs(); ++j) {
      if (op.hasInput(j) && op.input(j)->id == id) opIn = j;
    }
    if (opIn < 0) throw internal_error("{}: implicit input '{}' is not an input of the op", op.describe(), id);
    implicit.push_back({prog->slot(id), kc.in(opIn)});
  }
  const int k = (op.numFormalInputs - 2) / 3;
  const auto maxLens = op.attrs.getInts("maxSequenceLengths");
  const int64_t batch = op.attrs.getInt("callbackBatchSize");
  const int64_t nSeq = op.inInfo(1).nelms();
  struct Stream {
    int data, offsets, lengths, progSlot;
    DataType offType, lenType;
    int64_t rows, maxLen;
    size_t rowBytes;
  };
  std::vector<Stream> streams;
  for (int i = 0; i < k; ++i) {
    const TensorInfo& d = op.inInfo(3 * i);
    Stream st;
    st.data = kc.in(3 * i);
    st.offsets = kc.in(3 * i + 1);
    st.lengths = kc.in(3 * i + 2);
    st.progSlot = prog->slot(body.inputIds.at(static_cast<size_t>(i)));
    st.offType = op.inType(3 * i + 1);
    st.lenType = op.inType(3 * i + 2);
    st.rows = d.shape()[0];
    st.maxLen = maxLens[static_cast<size_t>(i)];
    st.rowBytes = st.rows == 0 ? 0 : static_cast<size_t>(d.nbytes() / st.rows);
    streams.push_back(st);
  }
  const TensorInfo cbOut = body.getTensor(body.outputIds.at(0)).info;
  const int outSlot = prog->slot(body.outputIds.at(0));
  const int64_t cbLen = cbOut.shape()[1];
  const size_t cbRowBytes =
      cbOut.nelms() == 0 ? 0 : static_cast<size_t>(cbOut.nbytes() / (cbOut.shape()[0] * std::max<int64_t>(cbLen, 1)));
  const int64_t resultRows = op.outInfo(0).shape()[0];
  const size_t resultBytes = static_cast<size_t>(op.outInfo(0).nbytes());
  const int rOff = kc.in(op.numFormalInputs - 2), rLen = kc.in(op.numFormalInputs - 1), y = kc.out(0);
  const DataType rOffType = op.inType(op.numFormalInputs - 2), rLenType = op.inType(op.numFormalInputs - 1);
  auto buffers = std::make_shared<std::vector<std::vector<unsigned char>>>();
  for (const auto& st : streams) buffers->emplace_back(static_cast<size_t>(batch * st.maxLen) * st.rowBytes + 1);
  return [=](const RunState& s) {
    for (const auto& b : implicit) prog->setPtr(b.first, s.slots[b.second]);
    auto* out = static_cast<unsigned char*>(s.slots[y]);
    if (resultBytes > 0) std::memset(out, 0, resultBytes);
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].progSlot >= 0) prog->setPtr(streams[i].progSlot, (*buffers)[i].data());  // < 0: unread
    }
    for (int64_t call = 0; call < nSeq / batch; ++call) {
      // Unpack each data input's sequences of this batch (zero-padded to maxSequenceLength).
      for (size_t i = 0; i < streams.size(); ++i) {
        const Stream& st = streams[i];
        unsigned char* buf = (*buffers)[i].data();
        std::memset(buf, 0, static_cast<size_t>(batch * st.maxLen) * st.rowBytes);
        const auto* data = static_cast<const unsigned char*>(s.slots[st.data]);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t seq = call * batch + b;
          const int64_t off = intAt(s.slots[st.offsets], st.offType, seq);
          const int64_t len = std::min(intAt(s.slots[st.lengths], st.lenType, seq), st.maxLen);
          for (int64_t r = 0; r < len && off >= 0 && off + r < st.rows; ++r)
            std::memcpy(buf + static_cast<size_t>(b * st.maxLen + r) * st.rowBytes,
                        data + static_cast<size_t>(off + r) * st.rowBytes, st.rowBytes);
        }
      }
      prog->run(*s.rng);
      // Pack the first resultLengths rows of each sequence's output into the result.
      const auto* res = static_cast<const unsigned char*>(prog->ptr(outSlot));
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t seq = call * batch + b;
        const int64_t off = intAt(s.slots[rOff], rOffType, seq);
        const int64_t len = std::min(intAt(s.slots[rLen], rLenType, seq), cbLen);
        for (int64_t r = 0; r < len && off >= 0 && off + r < resultRows; ++r)
          std::memcpy(out + static_cast<size_t>(off + r) * cbRowBytes,
                      res + static_cast<size_t>(b * cbLen + r) * cbRowBytes, cbRowBytes);
      }
    }
  };
}

}  // namespace cpu
}  // namespace popart
