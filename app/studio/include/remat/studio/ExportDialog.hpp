#pragma once

#include <QDialog>
#include <QString>

#include <functional>
#include <optional>
#include <string>

#include "remat/viz/PlanFigures.hpp"

#include "remat/vizqt/FigureFile.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;

namespace remat::studio {

/// File > Export figure: a figure for a paper or a talk, from the view shown. The canvas (one column,
/// two columns, a slide, the screen's, or any size in inches), the text size in points, the theme, the
/// PNG resolution and the file; a preview of the file as it will be. The options are those of `remat
/// render` (vizqt::FigureOptions), and the file is made the way it makes its files
/// (vizqt::encodeFigure), so that the same request gives the same bytes; commandLine() says which
/// `remat render` options these are.
class ExportDialog : public QDialog {
  Q_OBJECT

 public:
  /// `exporter` writes the figure with the options to a path (chains collapsed or not: the checkpoint
  /// drawing's `--collapse-chains`) and returns an error, or an empty string; `request` says what the
  /// figure draws now, or why there is none; the preview is that request encoded as PNG the way the file
  /// will be (vizqt::encodeFigure). `graphFigure`: the figure is the checkpoint drawing, which offers
  /// "Collapse chains".
  using Exporter =
      std::function<QString(const QString& path, const vizqt::FigureOptions& options, bool collapseChains)>;
  using Request = std::function<std::optional<viz::FigureRequest>(std::string& why)>;
  ExportDialog(const QString& figureName, const QString& suggestedPath, Exporter exporter, Request request,
               bool graphFigure = false, QWidget* parent = nullptr);

  /// The options as set (the paper theme and a 9-pt text at one column's width to begin with).
  [[nodiscard]] vizqt::FigureOptions options() const;
  /// Chooses a named size (vizqt::figureSizes); false for an unknown name.
  bool setSize(const QString& name);
  void setFontSize(double points);
  void setTheme(const QString& theme);
  void setDpi(double dpi);
  void setPath(const QString& path);
  /// The checkpoint drawing only: chains of simple operations as one box (readable at a column's width).
  void setCollapseChains(bool collapse);
  [[nodiscard]] bool collapseChains() const;
  [[nodiscard]] QString path() const;
  /// The `remat render` options that make the same file.
  [[nodiscard]] QString commandLine() const;
  /// Writes the file (what the Export button does); false with the reason shown in the dialog.
  bool exportNow();
  /// The preview's text: the page size in inches and points, the text size, or why there is no figure.
  [[nodiscard]] QString previewText() const;
  /// Builds the preview again (after each change of an option).
  void refreshPreview();

 private:
  QComboBox* m_size = nullptr;
  QDoubleSpinBox* m_width = nullptr;   ///< inches
  QDoubleSpinBox* m_height = nullptr;  ///< inches
  QDoubleSpinBox* m_fontSize = nullptr;
  QComboBox* m_theme = nullptr;
  QDoubleSpinBox* m_dpi = nullptr;
  QLineEdit* m_path = nullptr;
  QLabel* m_preview = nullptr;
  QLabel* m_info = nullptr;
  QLabel* m_command = nullptr;
  QCheckBox* m_collapse = nullptr;  ///< null but for the checkpoint drawing
  Exporter m_exporter;
  Request m_request;
  bool m_settingSize = false;
};

}  // namespace remat::studio
