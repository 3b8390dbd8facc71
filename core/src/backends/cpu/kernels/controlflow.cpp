// CPU kernels of control flow: each subgraph is compiled into its own Program, whose formal and
// implicit inputs are pointed at the op's buffers before every run.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/kernel.hpp"
#include "backends/cpu/program.hpp"
#include "ops/controlflow_params.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace cpu {
namespace {

void copyValue(void* dst, const void* src, const TensorInfo& info) {
  if (info.dataType() == DataType::STRING) {
    const auto* s = static_cast<const std::string*>(src);
    std::copy(s, s + info.nelms(), static_cast<std::string*>(dst));
  } else if (info.nbytes() > 0 && dst != src) {
    std::memmove(dst, src, static_cast<size_t>(info.nbytes()));
  }
}

/// A subgraph program and where its implicit inputs come from in the op.
struct Sub {
  std::shared_ptr<Program> prog;
  std::vector<std::pair<int, int>> implicit;  // (program slot, op slot)
  void bind(const RunState& s) {
    for (const auto& b : implicit) prog->setPtr(b.first, s.slots[b.second]);
  }
};

Sub compileSub(const Op& op, const Graph& g, KernelContext& kc) {
  Sub sub;
  sub.prog = Program::forSubgraph(g);
  for (const auto& id : g.implicitInputIds) {
    int opIn = -1;
    for (int j = op.numFormalInputs; j < op.numInputs(); ++j) {
      if (op.hasInput(j) && op.input(j)->id == id) opIn = j;
    }
    if (opIn < 0) throw internal_error("{}: implicit input '{}' is not an input of the op", op.describe(), id);
    sub.implicit.push_back({sub.prog->slot(id), kc.in(opIn)});
  }
  return sub;
}

int programSlot(const Sub& sub, const TensorId& id) {
  const int s = sub.prog->slot(id);
  if (s < 0) throw internal_error("subgraph tensor '{}' has no slot", id);
  return s;
}

}  // namespace

KernelFn makeCpuKernel_If(const Op& op, KernelContext& kc) {
  // Both branches, or only the one a known condition takes (ops/controlflow_params.hpp ifBranch).
  struct Branch {
    Sub sub;
    std::vector<int> outSlots;
    std::vector<TensorInfo> outInfos;
  };
  auto branches = std::make_shared<std::vector<std::optional<Branch>>>(2);
  std::string leftOut;
  for (size_t b = 0; b < 2; ++b) {
    const Graph* g = nullptr;
    try {
      g = &ifBranch(op, b == 0);
    } catch (const error& e) {
      leftOut = e.what();  // this branch does not import: the run that takes it fails with why
      continue;
    }
    Branch br{compileSub(op, *g, kc), {}, {}};
    for (const auto& id : g->outputIds) {
      br.outSlots.push_back(programSlot(br.sub, id));
      br.outInfos.push_back(g->getTensor(id).info);
    }
    (*branches)[b] = std::move(br);
  }
  std::vector<int> outs;
  std::vector<TensorInfo> infos;
  for (int i = 0; i < op.numOutputs(); ++i) {
    outs.push_back(kc.out(i));
    infos.push_back(op.hasOutput(i) ? op.outInfo(i) : TensorInfo());
  }
  const int c = kc.in(0);
  const LoadFn loadCond = op.inType(0) == DataType::BOOL ? nullptr : floatLoader(op.inType(0));
  const std::string where = op.describe();
  return [=](const RunState& s) {
    const bool cond = loadCond ? loadCond(inPtr<void>(s, c), 0) != 0 : *inPtr<bool>(s, c);
    const size_t b = cond ? 0 : 1;
    if (!(*branches)[b]) throw error("{}", leftOut);
    Branch& br = *(*branches)[b];
    br.sub.bind(s);
    br.sub.prog->run(*s.rng);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i] < 0) continue;
      if (br.outInfos[i] != infos[i])
        throw error("{}: the {} branch gives output {} as {}, not {} (static shapes)", where, b ? "else" : "then", i,
                    br.outInfos[i].toString(), infos[i].toString());
      copyValue(s.slots[outs[i]], br.sub.prog->ptr(br.outSlots[i]), infos[i]);
    }
  };
}

/// Call: the callee's program run on the op's inputs (bound in place: a subgraph program never
/// writes its inputs), its outputs copied out.
KernelFn makeCpuKernel_GcCall(const Op& op, KernelContext& kc) {
  const Graph& body = *op.subgraphs.at(0);
  auto sub = std::make_shared<Sub>(compileSub(op, body, kc));
  std::vector<std::pair<int, int>> formal;  // (program slot, op slot)
  for (int i = 0; i < op.numFormalInputs && i < static_cast<int>(body.inputIds.size()); ++i) {
    const int p = sub->prog->slot(body.inputIds[static_cast<size_t>(i)]);
    if (p >= 0) formal.push_back({p, kc.in(i)});  // < 0: the callee does not read it
  }
  std::vector<int> outs, progOuts;
  std::vector<TensorInfo> infos;
  for (int o = 0; o < op.numOutputs(); ++o) {
    outs.push_back(kc.out(o));
    progOuts.push_back(programSlot(*sub, body.outputIds.at(static_cast<size_t>(o))));
    infos.push_back(op.hasOutput(o) ? op.outInfo(o) : TensorInfo());
  }
  return [=](const RunState& s) {
    sub->bind(s);
    for (const auto& f : formal) sub->prog->setPtr(f.first, s.slots[f.second]);
    sub->prog->run(*s.rng);
    for (size_t o = 0; o < outs.size(); ++o) {
      if (outs[o] >= 0) copyValue(s.slots[outs[o]], sub->prog->ptr(progOuts[o]), infos[o]);
    }
  };
}

KernelFn makeCpuKernel_Loop(const Op& op, KernelContext& kc) {
  const Graph& body = *op.subgraphs.at(0);
  auto sub = std::make_shared<Sub>(compileSub(op, body, kc));
  const int nCarried = op.numFormalInputs - 2;
  const int nScan = static_cast<int>(body.outputIds.size()) - 1 - nCarried;
  const int iterSlot = programSlot(*sub, body.inputIds.at(0)), condSlot = programSlot(*sub, body.inputIds.at(1));
  const int condOut = programSlot(*sub, body.outputIds.at(0));
  std::vector<int> carriedIn, carriedOut, scanOut, opInit, opOut;
  std::vector<TensorInfo> carriedInfo, scanInfo;
  for (int i = 0; i < nCarried; ++i) {
    carriedIn.push_back(programSlot(*sub, body.inputIds.at(static_cast<size_t>(2 + i))));
    carriedOut.push_back(programSlot(*sub, body.outputIds.at(static_cast<size_t>(1 + i))));
    carriedInfo.push_back(op.inInfo(2 + i));
    if (carriedInfo.back().dataType() == DataType::STRING) throw error("loop-carried STRING values are not supported");
    opInit.push_back(kc.in(2 + i));
    opOut.push_back(kc.out(i));
  }
  int64_t staticTrips = -1;
  for (int k = 0; k < nScan; ++k) {
    scanOut.push_back(programSlot(*sub, body.outputIds.at(static_cast<size_t>(1 + nCarried + k))));
    scanInfo.push_back(body.getTensor(body.outputIds.at(static_cast<size_t>(1 + nCarried + k))).info);
    opOut.push_back(kc.out(nCarried + k));
    staticTrips = op.outInfo(nCarried + k).shape()[0];
  }
  auto carried = std::make_shared<std::vector<std::vector<unsigned char>>>();
  for (const auto& info : carriedInfo) carried->emplace_back(static_cast<size_t>(info.nbytes()) + 1);
  auto next = std::make_shared<std::vector<std::vector<unsigned char>>>(*carried);
  const int mSlot = kc.in(0), cSlot = op.hasInput(1) ? kc.in(1) : -1;
  const std::string where = op.describe();
  return [=](const RunState& s) {
    const int64_t trips = mSlot >= 0 ? *inPtr<int64_t>(s, mSlot) : std::numeric_limits<int64_t>::max();
    bool cond = cSlot >= 0 ? *inPtr<bool>(s, cSlot) : true;
    for (int i = 0; i < nCarried; ++i)
      copyValue((*carried)[static_cast<size_t>(i)].data(), s.slots[opInit[static_cast<size_t>(i)]],
                carriedInfo[static_cast<size_t>(i)]);
    sub->bind(s);
    int64_t iter = 0;
    while (iter < trips && cond) {
      int64_t iterValue = iter;
      bool condValue = cond;
      sub->prog->setPtr(iterSlot, &iterValue);
      sub->prog->setPtr(condSlot, &condValue);
      for (int i = 0; i < nCarried; ++i)
        sub->prog->setPtr(carriedIn[static_cast<size_t>(i)], (*carried)[static_cast<size_t>(i)].data());
      sub->prog->run(*s.rng);
      cond = *static_cast<const bool*>(sub->prog->ptr(condOut));
      // The body's outputs may be views of its carried inputs (a scan output Identity(prev), two
      // values swapped): the scan outputs are taken first, and the next carried values are all
      // read before any is written.
      for (int k = 0; k < nScan; ++k) {
        if (iter >= staticTrips)
          throw error("{}: more iterations than the {} the scan outputs were sized for", where, staticTrips);
        const int64_t bytes = scanInfo[static_cast<size_t>(k)].nbytes();
        std::memcpy(static_cast<unsigned char*>(s.slots[opOut[static_cast<size_t>(nCarried + k)]]) + iter * bytes,
                    sub->prog->ptr(scanOut[static_cast<size_t>(k)]), static_cast<size_t>(bytes));
      }
      for (int i = 0; i < nCarried; ++i)
        copyValue((*next)[static_cast<size_t>(i)].data(), sub->prog->ptr(carriedOut[static_cast<size_t>(i)]),
                  carriedInfo[static_cast<size_t>(i)]);
      carried->swap(*next);
      ++iter;
    }
    if (nScan > 0 && iter != staticTrips)
      throw error(
          "{}: the loop stopped after {} of {} iterations; scan outputs of a loop that ends early have a "
          "data-dependent shape, which this runtime does not support",
          where, iter, staticTrips);
    for (int i = 0; i < nCarried; ++i) {
      if (opOut[static_cast<size_t>(i)] >= 0)
        copyValue(s.slots[opOut[static_cast<size_t>(i)]], (*carried)[static_cast<size_t>(i)].data(),
                  carriedInfo[static_cast<size_t>(i)]);
    }
  };
}

KernelFn makeCpuKernel_Scan(const Op& op, KernelContext& kc) {
  const Graph& body = *op.subgraphs.at(0);
  const ops::ScanParams p = ops::scanParams(op);
  auto sub = std::make_shared<Sub>(compileSub(op, body, kc));
  const int first = p.batched ? 1 : 0;
  struct Stream {
    int opSlot, progSlot;
    int64_t outer, inner, len;  // the op tensor seen as [outer, len, inner] around the scan axis
    size_t elem;
    bool reverse;
  };
  std::vector<Stream> ins, outs;
  std::vector<int> stateIn, stateOut, stateInit, stateFinal;
  std::vector<TensorInfo> stateInfo;
  for (int i = 0; i < p.numStates; ++i) {
    stateIn.push_back(programSlot(*sub, body.inputIds.at(static_cast<size_t>(i))));
    stateOut.push_back(programSlot(*sub, body.outputIds.at(static_cast<size_t>(i))));
    stateInfo.push_back(body.getTensor(body.inputIds.at(static_cast<size_t>(i))).info);
    stateInit.push_back(kc.in(first + i));
    stateFinal.push_back(kc.out(i));
  }
  auto geometry = [](const Shape& s, int64_t axis, int64_t* outer, int64_t* len, int64_t* inner) {
    *outer = *inner = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
      if (d < axis) *outer *= s[static_cast<size_t>(d)];
      if (d > axis) *inner *= s[static_cast<size_t>(d)];
    }
    *len = s[static_cast<size_t>(axis)];
  };
  // With a batch (opset 8), [batch, ...]: one batch element's slice is [outer', len, inner].
  for (int j = 0; j < p.numScanInputs; ++j) {
    Shape s = op.inShape(p.firstScanInput + j);
    int64_t axis = p.inAxes[static_cast<size_t>(j)];
    if (p.batched) {
      s.erase(s.begin());
      --axis;
    }
    Stream st{kc.in(p.firstScanInput + j),
              programSlot(*sub, body.inputIds.at(static_cast<size_t>(p.numStates + j))),
              0,
              0,
              0,
              static_cast<size_t>(dataTypeSize(op.inType(p.firstScanInput + j))),
              p.inDirections[static_cast<size_t>(j)] != 0};
    geometry(s, axis, &st.outer, &st.len, &st.inner);
    ins.push_back(st);
  }
  for (int k = 0; k < p.numScanOutputs; ++k) {
    Shape s = op.outInfo(p.numStates + k).shape();
    if (p.batched) s.erase(s.begin());
    const int64_t axis = ops::normalizeAxis(p.outAxes[static_cast<size_t>(k)], static_cast<int64_t>(s.size()));
    if (p.outConcat[static_cast<size_t>(k)]) {
      // PopART's concatenation along `axis` is the stacking of [length, n] there (same layout).
      const int64_t n = s[static_cast<size_t>(axis)] / std::max<int64_t>(p.length, 1);
      s[static_cast<size_t>(axis)] = n;
      s.insert(s.begin() + axis, p.length);
    }
    Stream st{kc.out(p.numStates + k),
              programSlot(*sub, body.outputIds.at(static_cast<size_t>(p.numStates + k))),
              0,
              0,
              0,
              static_cast<size_t>(dataTypeSize(op.outInfo(p.numStates + k).dataType())),
              p.outDirections[static_cast<size_t>(k)] != 0};
    geometry(s, axis, &st.outer, &st.len, &st.inner);
    outs.push_back(st);
  }
  // Per-iteration slices of the scan inputs, and the states.
  auto bufs = std::make_shared<std::vector<std::vector<unsigned char>>>();
  for (const auto& st : ins) bufs->emplace_back(static_cast<size_t>(st.outer * st.inner) * st.elem + 1);
  auto states = std::make_shared<std::vector<std::vector<unsigned char>>>();
  for (const auto& info : stateInfo) states->emplace_back(static_cast<size_t>(info.nbytes()) + 1);
  const int64_t L = p.length, B = p.batch;
  return [=](const RunState& s) {
    sub->bind(s);
    for (int64_t b = 0; b < B; ++b) {
      for (size_t i = 0; i < states->size(); ++i) {
        const auto n = static_cast<size_t>(stateInfo[i].nbytes());
        std::memcpy((*states)[i].data(), static_cast<const unsigned char*>(s.slots[stateInit[i]]) + b * n, n);
      }
      for (int64_t t = 0; t < L; ++t) {
        for (size_t j = 0; j < ins.size(); ++j) {
          const Stream& st = ins[j];
          const int64_t idx = st.reverse ? L - 1 - t : t;
          const size_t blk = static_cast<size_t>(st.inner) * st.elem;
          const auto* src = static_cast<const unsigned char*>(s.slots[st.opSlot]) + b * st.outer * st.len * blk;
          for (int64_t o = 0; o < st.outer; ++o)
            std::memcpy((*bufs)[j].data() + o * blk, src + (o * st.len + idx) * blk, blk);
          sub->prog->setPtr(st.progSlot, (*bufs)[j].data());
        }
        for (size_t i = 0; i < states->size(); ++i) sub->prog->setPtr(stateIn[i], (*states)[i].data());
        sub->prog->run(*s.rng);
        for (size_t i = 0; i < states->size(); ++i)
          std::memmove((*states)[i].data(), sub->prog->ptr(stateOut[i]), static_cast<size_t>(stateInfo[i].nbytes()));
        for (const Stream& st : outs) {
          if (st.opSlot < 0) continue;
          const int64_t idx = st.reverse ? L - 1 - t : t;
          const size_t blk = static_cast<size_t>(st.inner) * st.elem;
          auto* dst = static_cast<unsigned char*>(s.slots[st.opSlot]) + b * st.outer * st.len * blk;
          const auto* src = static_cast<const unsigned char*>(sub->prog->ptr(st.progSlot));
          for (int64_t o = 0; o < st.outer; ++o) std::memcpy(dst + (o * st.len + idx) * blk, src + o * blk, blk);
        }
      }
      for (size_t i = 0; i < states->size(); ++i) {
        if (stateFinal[i] < 0) continue;
        const auto n = static_cast<size_t>(stateInfo[i].nbytes());
        std::memcpy(static_cast<unsigned char*>(s.slots[stateFinal[i]]) + b * n, (*states)[i].data(), n);
      }
    }
  };
}

}  // namespace cpu
}  // namespace popart
