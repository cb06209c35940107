#include "remat/studio/ExportDialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>
#include <exception>

namespace remat::studio {

namespace {

constexpr double kPx = 96.0;  // CSS pixels per inch
constexpr int kPreviewWidth = 520;
constexpr int kPreviewHeight = 300;
const QString kCustom = QStringLiteral("custom");

QString number(double v) { return QString::number(v, 'g', 6); }

}  // namespace

ExportDialog::ExportDialog(const QString& figureName, const QString& suggestedPath, Exporter exporter, Request request,
                           bool graphFigure, QWidget* parent)
    : QDialog(parent), m_exporter(std::move(exporter)), m_request(std::move(request)) {
  setWindowTitle(tr("Export %1").arg(figureName));
  setObjectName(QStringLiteral("exportDialog"));
  m_size = new QComboBox;
  m_size->setObjectName(QStringLiteral("exportSize"));
  for (const vizqt::FigureSize& s : vizqt::figureSizes())
    m_size->addItem(QStringLiteral("%1 (%2)").arg(
                        QString::fromUtf8(s.name.data(), static_cast<qsizetype>(s.name.size())),
                        QString::fromUtf8(s.description.data(), static_cast<qsizetype>(s.description.size()))),
                    QString::fromUtf8(s.name.data(), static_cast<qsizetype>(s.name.size())));
  m_size->addItem(tr("custom size"), kCustom);
  auto inches = [](const char* name) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(QString::fromLatin1(name));
    box->setRange(100 / kPx, 20000 / kPx);
    box->setDecimals(2);
    box->setSingleStep(0.1);
    box->setSuffix(QStringLiteral(" in"));
    return box;
  };
  m_width = inches("exportWidth");
  m_height = inches("exportHeight");
  m_fontSize = new QDoubleSpinBox;
  m_fontSize->setObjectName(QStringLiteral("exportFontSize"));
  m_fontSize->setRange(4, 72);
  m_fontSize->setDecimals(1);
  m_fontSize->setSuffix(QStringLiteral(" pt"));
  m_fontSize->setValue(9);
  m_fontSize->setToolTip(
      tr("Tick labels and legends; titles and annotations in proportion. Papers set figure "
         "text at 7-10 pt at the printed size."));
  m_theme = new QComboBox;
  m_theme->setObjectName(QStringLiteral("exportTheme"));
  m_theme->addItem(tr("paper (serif, safe in black and white)"), QStringLiteral("paper"));
  m_theme->addItem(tr("screen (sans-serif)"), QStringLiteral("screen"));
  m_dpi = new QDoubleSpinBox;
  m_dpi->setObjectName(QStringLiteral("exportDpi"));
  m_dpi->setRange(10, 2400);
  m_dpi->setDecimals(0);
  m_dpi->setValue(300);
  m_dpi->setToolTip(tr("PNG only: pixels per inch (PDF and SVG are vector)"));
  m_path = new QLineEdit(suggestedPath);
  m_path->setObjectName(QStringLiteral("exportPath"));
  auto* browse = new QPushButton(tr("Browse..."));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export figure"), m_path->text(),
                                                        tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"));
    if (!chosen.isEmpty()) m_path->setText(chosen);
  });
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(m_path, 1);
  pathRow->addWidget(browse);

  m_preview = new QLabel;
  m_preview->setObjectName(QStringLiteral("exportPreview"));
  m_preview->setMinimumSize(kPreviewWidth, kPreviewHeight);
  m_preview->setAlignment(Qt::AlignCenter);
  m_preview->setStyleSheet(QStringLiteral("background: #8a8a8a;"));
  m_info = new QLabel;
  m_info->setObjectName(QStringLiteral("exportInfo"));
  m_info->setWordWrap(true);
  m_command = new QLabel;
  m_command->setObjectName(QStringLiteral("exportCommand"));
  m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_command->setWordWrap(true);

  auto* form = new QFormLayout;
  form->addRow(tr("Size"), m_size);
  auto* dims = new QHBoxLayout;
  dims->addWidget(m_width);
  dims->addWidget(new QLabel(QStringLiteral("\u00d7")));
  dims->addWidget(m_height);
  form->addRow(QString(), dims);
  form->addRow(tr("Text"), m_fontSize);
  form->addRow(tr("Theme"), m_theme);
  form->addRow(tr("PNG resolution"), m_dpi);
  if (graphFigure) {
    m_collapse = new QCheckBox(tr("Collapse chains of simple operations into one box"));
    m_collapse->setObjectName(QStringLiteral("exportCollapseChains"));
    m_collapse->setToolTip(
        tr("Fewer, larger boxes: node names stay readable at a paper's column width (remat render "
           "--collapse-chains)"));
    form->addRow(tr("Drawing"), m_collapse);
  }
  form->addRow(tr("File"), pathRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
  QPushButton* exportButton = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  exportButton->setObjectName(QStringLiteral("exportButton"));
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    if (exportNow()) accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_preview, 1);
  layout->addWidget(m_info);
  layout->addWidget(m_command);
  layout->addWidget(buttons);

  connect(m_size, &QComboBox::currentIndexChanged, this, [this] {
    const auto size = vizqt::figureSizeFromName(m_size->currentData().toString().toStdString());
    if (size) {
      m_settingSize = true;
      m_width->setValue(size->width / kPx);
      m_height->setValue(size->height / kPx);
      m_settingSize = false;
    }
    refreshPreview();
  });
  auto custom = [this] {
    if (m_settingSize) return;
    const QSignalBlocker block(m_size);
    m_size->setCurrentIndex(m_size->findData(kCustom));
    refreshPreview();
  };
  connect(m_width, &QDoubleSpinBox::valueChanged, this, custom);
  connect(m_height, &QDoubleSpinBox::valueChanged, this, custom);
  connect(m_fontSize, &QDoubleSpinBox::valueChanged, this, &ExportDialog::refreshPreview);
  connect(m_theme, &QComboBox::currentIndexChanged, this, &ExportDialog::refreshPreview);
  connect(m_dpi, &QDoubleSpinBox::valueChanged, this, &ExportDialog::refreshPreview);
  connect(m_path, &QLineEdit::textChanged, this, &ExportDialog::refreshPreview);
  if (m_collapse) connect(m_collapse, &QCheckBox::toggled, this, &ExportDialog::refreshPreview);
  setSize(QStringLiteral("column"));
  refreshPreview();
}

vizqt::FigureOptions ExportDialog::options() const {
  vizqt::FigureOptions o;
  // Whole hundredths of an inch, so that the named sizes are exact (3.3 in = 316.8 px).
  o.width = std::round(m_width->value() * 100) * kPx / 100;
  o.height = std::round(m_height->value() * 100) * kPx / 100;
  if (const auto named = vizqt::figureSizeFromName(m_size->currentData().toString().toStdString())) {
    o.width = named->width;
    o.height = named->height;
  }
  o.fontSize = m_fontSize->value();
  o.theme = m_theme->currentData().toString().toStdString();
  o.dpi = m_dpi->value();
  return o;
}

bool ExportDialog::setSize(const QString& name) {
  const int index = m_size->findData(name);
  if (index < 0 || name == kCustom) return false;
  if (m_size->currentIndex() == index) {
    // Re-applied, so that the width and height fields show it.
    const auto size = vizqt::figureSizeFromName(name.toStdString());
    m_settingSize = true;
    m_width->setValue(size->width / kPx);
    m_height->setValue(size->height / kPx);
    m_settingSize = false;
    refreshPreview();
  } else {
    m_size->setCurrentIndex(index);
  }
  return true;
}

void ExportDialog::setFontSize(double points) { m_fontSize->setValue(points); }
void ExportDialog::setTheme(const QString& theme) { m_theme->setCurrentIndex(m_theme->findData(theme)); }
void ExportDialog::setDpi(double dpi) { m_dpi->setValue(dpi); }
void ExportDialog::setPath(const QString& path) { m_path->setText(path); }
QString ExportDialog::path() const { return m_path->text(); }
void ExportDialog::setCollapseChains(bool collapse) {
  if (m_collapse) m_collapse->setChecked(collapse);
}
bool ExportDialog::collapseChains() const { return m_collapse && m_collapse->isChecked(); }

QString ExportDialog::commandLine() const {
  const vizqt::FigureOptions o = options();
  const QString name = m_size->currentData().toString();
  QString sizeText = name != kCustom ? QStringLiteral("--size %1").arg(name)
                                     : QStringLiteral("--width %1 --height %2").arg(number(o.width), number(o.height));
  QString line =
      QStringLiteral("%1 --font-size %2 --theme %3").arg(sizeText, number(o.fontSize), QString::fromStdString(o.theme));
  if (m_path->text().endsWith(QStringLiteral(".png"), Qt::CaseInsensitive))
    line += QStringLiteral(" --dpi %1").arg(number(o.dpi));
  if (collapseChains()) line += QStringLiteral(" --collapse-chains");
  return line;
}

QString ExportDialog::previewText() const { return m_info->text(); }

void ExportDialog::refreshPreview() {
  const vizqt::FigureOptions o = options();
  m_command->setText(tr("remat render options: %1").arg(commandLine()));
  // The file as it will be, at the preview's scale.
  const double scale = std::min(kPreviewWidth / o.width, kPreviewHeight / o.height);
  QString error;
  std::string png;
  try {
    std::string why;
    if (std::optional<viz::FigureRequest> request = m_request(why)) {
      request->graphOptions.collapseChains = collapseChains();
      const vizqt::EncodedFigure figure =
          vizqt::encodeFigure(*request, vizqt::prepareStyle(o), vizqt::ImageFormat::Png, kPx * scale);
      png = figure.bytes;
      error = QString::fromStdString(figure.error);
      // With a figure, what it leaves out (node names too small to read) is said under the preview.
      for (const std::string& w : figure.warnings)
        if (figure.error.empty())
          error += (error.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(w);
    } else {
      error = QString::fromStdString(why);
    }
  } catch (const std::exception& e) {
    error = QString::fromUtf8(e.what());
    png.clear();
  }
  if (png.empty()) {
    m_preview->setPixmap({});
    m_preview->setText(error);
    m_info->setText(tr("No figure: %1").arg(error));
    return;
  }
  QImage image;
  image.loadFromData(reinterpret_cast<const uchar*>(png.data()), static_cast<int>(png.size()), "PNG");
  m_preview->setPixmap(QPixmap::fromImage(image));
  m_info->setText(tr("Page %1 \u00d7 %2 in (%3 \u00d7 %4 pt); text %5 pt; preview at %6% of the printed size")
                      .arg(o.width / kPx, 0, 'f', 2)
                      .arg(o.height / kPx, 0, 'f', 2)
                      .arg(o.width * 72 / kPx, 0, 'f', 1)
                      .arg(o.height * 72 / kPx, 0, 'f', 1)
                      .arg(o.fontSize, 0, 'f', 1)
                      .arg(std::lround(100 * scale)) +
                  (error.isEmpty() ? QString() : QStringLiteral("\n") + error));
}

bool ExportDialog::exportNow() {
  const QString error = m_exporter(m_path->text(), options(), collapseChains());
  if (!error.isEmpty()) {
    m_info->setText(tr("Not written: %1").arg(error));
    return false;
  }
  return true;
}

}  // namespace remat::studio
