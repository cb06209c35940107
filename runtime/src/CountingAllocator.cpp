#include "CountingAllocator.hpp"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <mutex>
#include <unordered_map>
#include <vector>

namespace remat::runtime::detail {
namespace {

// The state of the one counting allocator of the process. Never destroyed: LibTorch frees tensors
// during static destruction too, and those frees still come here.
struct State {
  std::mutex mutex;
  std::unordered_map<void*, std::int64_t> sizes;  // live blocks by data pointer
  std::int64_t live = 0;
  std::int64_t peak = 0;
  c10::Allocator* inner = nullptr;
  c10::DeleterFnPtr innerDeleter = nullptr;
  // With keepLargeBlocks: freed blocks of kLargeBlock bytes or more, by size, for the next allocation of
  // exactly that size (never handed back: an iteration asks for the same sizes as the one before).
  bool keepLargeBlocks = false;
  std::unordered_map<std::int64_t, std::vector<void*>> freeBlocks;
};

constexpr std::int64_t kLargeBlock = std::int64_t{1} << 20;

State& state() {
  static State* s = new State;  // leaked on purpose (see State)
  return *s;
}

void countingDelete(void* data) {
  State& s = state();
  {
    const std::lock_guard lock(s.mutex);
    if (const auto it = s.sizes.find(data); it != s.sizes.end()) {
      const std::int64_t n = it->second;
      s.live -= n;
      s.sizes.erase(it);
      if (s.keepLargeBlocks && n >= kLargeBlock) {
        s.freeBlocks[n].push_back(data);
        return;
      }
    }
  }
  s.innerDeleter(data);
}

// Blocks keep the inner allocator's data pointer as their context, as LibTorch's default CPU allocator
// does, so that raw_allocate and raw_deallocate (which need context == data and a raw deleter) work
// through this one as well; the size of each block is kept in a table by pointer instead.
class CountingAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(std::size_t n) const override {
    State& s = state();
    const auto bytes = static_cast<std::int64_t>(n);
    if (bytes >= kLargeBlock) {
      const std::lock_guard lock(s.mutex);
      if (const auto it = s.freeBlocks.find(bytes); it != s.freeBlocks.end() && !it->second.empty()) {
        void* data = it->second.back();
        it->second.pop_back();
        s.sizes[data] = bytes;
        s.live += bytes;
        if (s.live > s.peak) s.peak = s.live;
        return {data, data, &countingDelete, c10::Device(c10::DeviceType::CPU)};
      }
    }
    c10::DataPtr inner = s.inner->allocate(n);
    void* data = inner.get();
    if (data == nullptr) return inner;  // zero bytes: nothing held
    inner.release_context();            // freed by countingDelete from now on
    {
      const std::lock_guard lock(s.mutex);
      s.sizes[data] = static_cast<std::int64_t>(n);
      s.live += static_cast<std::int64_t>(n);
      if (s.live > s.peak) s.peak = s.live;
    }
    return {data, data, &countingDelete, inner.device()};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &countingDelete; }
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
#endif
};

}  // namespace

std::int64_t AllocationCounter::live() const {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  return s.live;
}

std::int64_t AllocationCounter::peak() const {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  return s.peak;
}

void AllocationCounter::resetPeak() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.peak = s.live;
}

void AllocationCounter::keepLargeBlocks() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.keepLargeBlocks = true;
}

AllocationCounter* installCountingCpuAllocator(std::string& why) {
  static CountingAllocator* allocator = nullptr;
  static AllocationCounter counter;
  if (allocator) return &counter;
  c10::Allocator* current = c10::GetCPUAllocator();
  // A block of the current allocator must be freed by its raw deleter given the data pointer alone.
  c10::DataPtr probe = current->allocate(64);
  if (current->raw_deleter() == nullptr || probe.get() == nullptr || probe.get() != probe.get_context()) {
    why = "LibTorch's CPU allocator hands out blocks that cannot be tracked by pointer";
    return nullptr;
  }
  probe.clear();
  State& s = state();
  s.inner = current;
  s.innerDeleter = current->raw_deleter();
  allocator = new CountingAllocator;  // leaked on purpose: c10 keeps a pointer to it for good
  c10::SetCPUAllocator(allocator, /*priority=*/UINT8_MAX);
  if (c10::GetCPUAllocator() != allocator) {
    why = "another CPU allocator of higher priority is installed";
    return nullptr;
  }
  return &counter;
}

}  // namespace remat::runtime::detail
