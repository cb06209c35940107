#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "remat/graph/ByteSize.hpp"
#include "remat/runtime/ValidationReport.hpp"

namespace remat::runtime {

using nlohmann::json;

namespace {

std::string printf1(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string signedBytes(std::int64_t b) { return (b > 0 ? "+" : "") + formatByteSize(Bytes{b}); }

std::string signedPercent(double p) { return printf1(p > 0 ? "+%.2f%%" : "%.2f%%", p); }

// "412 us", "12.3 ms", "1.24 s"
std::string secondsText(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 1e-3) return printf1("%.0f us", s * 1e6);
  if (s < 1.0) return printf1(s < 1e-2 ? "%.2f ms" : s < 1e-1 ? "%.1f ms" : "%.0f ms", s * 1e3);
  return printf1(s < 10 ? "%.2f s" : "%.1f s", s);
}

json optionalInt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
json optionalNumber(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

}  // namespace

std::optional<double> secondsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us" || unit == "\u00b5s") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return std::nullopt;
}

double ValidationRow::peakErrorPercent() const {
  return simulatedPeak.value > 0 ? 100.0 * double(peakErrorBytes()) / double(simulatedPeak.value) : 0.0;
}

std::optional<double> ValidationRow::allocatorErrorPercent() const {
  if (!allocatorPeak || simulatedPeak.value <= 0) return std::nullopt;
  return 100.0 * double(*allocatorPeak - simulatedPeak.value) / double(simulatedPeak.value);
}

std::optional<double> ValidationRow::timeErrorPercent() const {
  if (!predictedSeconds || *predictedSeconds <= 0) return std::nullopt;
  return 100.0 * (measuredSeconds - *predictedSeconds) / *predictedSeconds;
}

std::int64_t ValidationReport::maxAbsPeakErrorBytes() const {
  std::int64_t worst = 0;
  for (const auto& r : rows) worst = std::max(worst, std::abs(r.peakErrorBytes()));
  return worst;
}

std::optional<double> ValidationReport::maxAbsTimeErrorPercent() const {
  std::optional<double> worst;
  for (const auto& r : rows)
    if (auto e = r.timeErrorPercent()) worst = std::max(worst.value_or(0.0), std::abs(*e));
  return worst;
}

std::optional<double> ValidationReport::maxAbsAllocatorErrorPercent() const {
  std::optional<double> worst;
  for (const auto& r : rows)
    if (auto e = r.allocatorErrorPercent()) worst = std::max(worst.value_or(0.0), std::abs(*e));
  return worst;
}

std::vector<std::vector<std::string>> validationTable(const ValidationReport& report) {
  bool views = false;
  bool allocator = false;
  bool reserved = false;
  for (const auto& r : report.rows) {
    views |= r.viewAliasAtPeak != 0;
    allocator |= r.allocatorPeak.has_value();
    reserved |= r.reservedPeak.has_value();
  }
  std::vector<std::string> header{"plan", "budget", "model peak", "simulated peak"};
  if (allocator) header.insert(header.end(), {"allocator peak", "alloc. error"});
  if (reserved) header.emplace_back("reserved");
  header.insert(header.end(), {"table peak", "table error"});
  if (views) header.emplace_back("view-held");
  header.insert(header.end(),
                {"predicted time", "measured time", "time error", "pred. overhead", "meas. overhead", "grads"});
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& r : report.rows) {
    std::vector<std::string> row{r.label, r.budget ? formatByteSize(*r.budget) : std::string("none"),
                                 r.modelPeak ? formatByteSize(*r.modelPeak) : std::string("-"),
                                 formatByteSize(r.simulatedPeak)};
    if (allocator) {
      row.push_back(r.allocatorPeak ? formatByteSize(Bytes{*r.allocatorPeak}) : std::string("-"));
      const auto error = r.allocatorErrorPercent();
      row.push_back(error ? signedPercent(*error) : std::string("-"));
    }
    if (reserved) row.push_back(r.reservedPeak ? formatByteSize(Bytes{*r.reservedPeak}) : std::string("-"));
    row.push_back(formatByteSize(Bytes{r.measuredPeak}));
    row.push_back(signedBytes(r.peakErrorBytes()) + " (" + signedPercent(r.peakErrorPercent()) + ")");
    if (views) row.push_back(formatByteSize(Bytes{r.viewAliasAtPeak}));
    row.push_back(r.predictedSeconds ? secondsText(*r.predictedSeconds)
                                     : std::to_string(r.predictedTime.value) + " " + report.timeUnit);
    row.push_back(secondsText(r.measuredSeconds));
    const auto timeError = r.timeErrorPercent();
    row.push_back(timeError ? signedPercent(*timeError) : std::string("-"));
    row.push_back(signedPercent(100.0 * r.predictedOverheadRatio));
    row.push_back(r.measuredOverheadRatio ? signedPercent(100.0 * *r.measuredOverheadRatio) : std::string("-"));
    row.push_back(!r.gradientsMatch ? "not checked" : *r.gradientsMatch ? "equal" : "DIFFER");
    rows.push_back(std::move(row));
  }
  return rows;
}

json validationJson(const ValidationReport& report) {
  json j;
  j["graph"] = report.graph;
  j["device"] = report.device;
  j["cost_model"] = report.costModel;
  j["time_unit"] = report.timeUnit;
  j["warmup"] = report.warmup;
  j["iterations"] = report.iterations;
  j["store_all_predicted_time"] = report.storeAllPredictedTime.value;
  j["store_all_measured_seconds"] = report.storeAllMeasuredSeconds;
  j["max_abs_peak_error_bytes"] = report.maxAbsPeakErrorBytes();
  j["max_abs_time_error_percent"] = optionalNumber(report.maxAbsTimeErrorPercent());
  j["max_abs_allocator_error_percent"] = optionalNumber(report.maxAbsAllocatorErrorPercent());
  j["rows"] = json::array();
  for (const auto& r : report.rows) {
    json row;
    row["label"] = r.label;
    row["solver"] = r.solver;
    row["budget_bytes"] = r.budget ? json(r.budget->value) : json(nullptr);
    row["model_peak_bytes"] = r.modelPeak ? json(r.modelPeak->value) : json(nullptr);
    row["predicted_peak_bytes"] = r.simulatedPeak.value;
    row["predicted_peak_step"] = r.simulatedPeakStep;
    row["measured_peak_bytes"] = r.measuredPeak;
    row["measured_peak_step"] = r.measuredPeakStep;
    row["view_held_at_peak_bytes"] = r.viewAliasAtPeak;
    row["measured_peak_without_views_bytes"] = r.measuredPeakWithoutViews;
    row["peak_error_bytes"] = r.peakErrorBytes();
    row["peak_error_percent"] = r.peakErrorPercent();
    row["allocator_peak_bytes"] = optionalInt(r.allocatorPeak);
    row["allocator_peak_step"] = r.allocatorPeakStep ? json(*r.allocatorPeakStep) : json(nullptr);
    row["allocator_error_percent"] = optionalNumber(r.allocatorErrorPercent());
    row["reserved_peak_bytes"] = optionalInt(r.reservedPeak);
    row["predicted_time"] = r.predictedTime.value;
    row["predicted_overhead"] = r.predictedOverhead.value;
    row["predicted_seconds"] = optionalNumber(r.predictedSeconds);
    row["measured_seconds"] = r.measuredSeconds;
    row["time_error_percent"] = optionalNumber(r.timeErrorPercent());
    row["predicted_overhead_ratio"] = r.predictedOverheadRatio;
    row["measured_overhead_ratio"] = optionalNumber(r.measuredOverheadRatio);
    row["gradients_match"] = r.gradientsMatch ? json(*r.gradientsMatch) : json(nullptr);
    row["gradient_max_rel_diff"] =
        optionalNumber(r.gradientsMatch ? std::optional<double>(r.gradientMaxRelDiff) : std::nullopt);
    row["plan_file"] = r.planFile.empty() ? json(nullptr) : json(r.planFile);
    row["measurement_file"] = r.measurementFile.empty() ? json(nullptr) : json(r.measurementFile);
    j["rows"].push_back(std::move(row));
  }
  j["notes"] = report.notes;
  return j;
}

viz::TimelineData validationTimeline(const ValidationReport& report) {
  viz::TimelineData data;
  data.timeUnit = report.timeUnit;
  for (const auto& r : report.rows) {
    data.series.push_back(r.predictedSeries);
    data.series.push_back(r.measuredSeries);
  }
  if (!report.rows.empty()) {
    const auto budget = report.rows.front().budget;
    const bool same =
        std::all_of(report.rows.begin(), report.rows.end(), [&](const ValidationRow& r) { return r.budget == budget; });
    if (same && budget) data.budget = budget->value;
  }
  return data;
}

}  // namespace remat::runtime
