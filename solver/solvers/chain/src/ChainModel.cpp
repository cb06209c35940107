#include "remat/solvers/ChainModel.hpp"

#include <algorithm>

#include "remat/graph/Units.hpp"

namespace remat::solvers {

std::int64_t ChainModel::storeAllTime() const {
  Ticks total{0};
  for (const ChainStage& s : stages) total += Ticks{s.forwardTime} + Ticks{s.backwardTime};
  return total.value;
}

ChainRun runChainOps(const ChainModel& model, const std::vector<ChainOp>& ops) {
  enum Held : std::uint8_t { None, Activation, Tape };
  const std::size_t length = model.length();
  ChainRun run;
  std::vector<Held> held(length + 1, None);
  std::vector<bool> pinned(length + 1, false);
  auto available = [&](std::size_t i) { return i == 0 || held[i] != None; };
  auto sizeOf = [&](std::size_t i) { return held[i] == Tape ? model.stage(i).tape : model.stage(i).output; };
  auto fail = [&](std::size_t k, const std::string& why) {
    run.valid = false;
    run.error = "operation " + std::to_string(k) + ": " + why;
    return run;
  };
  std::size_t next = length;  // the next backward; stages above it are done
  std::int64_t memory = length == 0 ? 0 : model.stage(length).outputGrad;
  auto drop = [&](std::size_t i) {
    memory -= sizeOf(i);
    held[i] = None;
    pinned[i] = false;
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const ChainOp op = ops[k];
    const std::size_t i = op.stage;
    if (i < 1 || i > length) return fail(k, "stage " + std::to_string(i) + " is not in the chain");
    const ChainStage& stage = model.stage(i);
    const std::string name = " " + std::to_string(i);
    switch (op.kind) {
      case ChainOpKind::ForwardDrop:
      case ChainOpKind::ForwardCheck:
      case ChainOpKind::ForwardAll: {
        if (i > next) return fail(k, "forward" + name + " after its backward");
        if (!available(i - 1)) return fail(k, "forward" + name + " without its input");
        if (held[i] != None) return fail(k, "forward" + name + " while its output is held");
        const bool dropsInput = op.kind == ChainOpKind::ForwardDrop && i > 1;
        if (dropsInput && (held[i - 1] != Activation || pinned[i - 1]))
          return fail(k, "forward" + name + " drops an input that is kept");
        const bool all = op.kind == ChainOpKind::ForwardAll;
        run.peak = std::max(run.peak, memory + (all ? stage.forwardAllPeak : stage.forwardPeak));
        held[i] = all ? Tape : Activation;
        memory += sizeOf(i);
        if (dropsInput)
          drop(i - 1);
        else
          pinned[i - 1] = true;
        run.time = (Ticks{run.time} + Ticks{stage.forwardTime}).value;  // recomputations: may saturate
        ++run.forwards;
        break;
      }
      case ChainOpKind::Backward: {
        if (i != next) return fail(k, "backward" + name + " is not the next backward");
        if (held[i] != Tape) return fail(k, "backward" + name + " without its tape");
        if (!available(i - 1)) return fail(k, "backward" + name + " without its input");
        run.peak = std::max(run.peak, memory - stage.tape - stage.outputGrad + stage.backwardPeak);
        memory -= stage.outputGrad;
        drop(i);
        if (i > 1) memory += model.stage(i - 1).outputGrad;
        run.time = (Ticks{run.time} + Ticks{stage.backwardTime}).value;
        next = i - 1;
        break;
      }
      case ChainOpKind::Discard:
        if (held[i] == None) return fail(k, "discard" + name + " of nothing");
        if (pinned[i] && next > i) return fail(k, "discard" + name + " before the backward that keeps it");
        drop(i);
        break;
    }
  }
  if (next != 0) return fail(ops.size(), "the sequence ends before the backward of stage " + std::to_string(next));
  run.valid = true;
  return run;
}

}  // namespace remat::solvers
