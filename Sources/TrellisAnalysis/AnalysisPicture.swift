import CCairo
import Foundation
import TrellisAudioFile

/// `trellis analyze --png/--svg`: a file's waveform (each channel's smallest and largest
/// sample per pixel column, clipped runs marked), its spectrogram (the channels mixed,
/// log frequency) and its short-term loudness over time with the integrated loudness,
/// on one time axis, drawn with Cairo.
///
/// The picture is written to a temporary file beside the target and renamed into place,
/// so a failure leaves no half-written image. Thread: control.
public struct AnalysisPicture {
    public enum Format: String, Sendable { case png, svg }

    public let width: Int
    public let height: Int
    static let margin = (left: 64.0, right: 16.0, top: 46.0, bottom: 36.0, gap: 40.0)

    /// A picture of `width` x `height` pixels (points in SVG).
    public init(width: Int, height: Int) throws(AnalysisError) {
        guard (320...8192).contains(width), (240...8192).contains(height) else {
            throw .unsupported("a picture from 320x240 to 8192x8192, not \(width)x\(height)")
        }
        self.width = width
        self.height = height
    }

    /// Pixel columns the plots span: what `PictureData` gathers.
    public var columns: Int { Int(Double(width) - Self.margin.left - Self.margin.right) }
    /// Rows of the spectrogram.
    public var bands: Int { max(16, Int(plotHeight * 0.4)) }
    private var plotHeight: Double { Double(height) - Self.margin.top - Self.margin.bottom - 2 * Self.margin.gap }

    public func write(_ analysis: FileAnalysis, data: PictureData, to path: String, format: Format) throws(AnalysisError) {
        let target: WriteTarget
        do { target = try WriteTarget(path, followingLinks: false) } catch { throw .unsupported("\(path): \(error.reason)") }
        let temporary: String
        switch TemporaryFile.reserve(beside: path, extension: format.rawValue) {
        case .success(let reserved): temporary = reserved
        case .failure(let reason): throw .unsupported("\(path): the picture could not be written (\(reason))")
        }
        let surface: OpaquePointer? = switch format {
        case .png: cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg: cairo_svg_surface_create(temporary, Double(width), Double(height))
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            if let surface { cairo_surface_destroy(surface) }
            unlink(temporary)
            throw .unsupported("\(path): Cairo could not make a \(width)x\(height) \(format.rawValue) surface")
        }
        let context = cairo_create(surface)!
        draw(analysis, data, on: context)
        cairo_destroy(context)
        var status = CAIRO_STATUS_SUCCESS
        if format == .png { status = cairo_surface_write_to_png(surface, temporary) }
        cairo_surface_finish(surface)
        if status == CAIRO_STATUS_SUCCESS { status = cairo_surface_status(surface) }
        cairo_surface_destroy(surface)
        guard status == CAIRO_STATUS_SUCCESS, chmod(temporary, target.mode) == 0, rename(temporary, path) == 0 else {
            let reason = status == CAIRO_STATUS_SUCCESS ? String(cString: strerror(errno)) : String(cString: cairo_status_to_string(status))
            unlink(temporary)
            throw .unsupported("\(path): the picture could not be written (\(reason))")
        }
    }

    // MARK: - drawing

    private struct Panel {
        var x, y, width, height: Double
    }

    private func draw(_ analysis: FileAnalysis, _ data: PictureData, on cr: OpaquePointer) {
        let m = Self.margin
        let plotWidth = Double(data.columns)
        let heights = (wave: plotHeight * 0.35, spectrum: plotHeight * 0.4, loudness: plotHeight * 0.25)
        let wave = Panel(x: m.left, y: m.top, width: plotWidth, height: heights.wave)
        let spectrum = Panel(x: m.left, y: wave.y + wave.height + m.gap, width: plotWidth, height: heights.spectrum)
        let loudness = Panel(x: m.left, y: spectrum.y + spectrum.height + m.gap, width: plotWidth, height: heights.loudness)
        let seconds = Double(data.frameCount) / data.sampleRate

        color(cr, 0.08, 0.09, 0.11)
        cairo_paint(cr)
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, 12)
        color(cr, 0.9, 0.9, 0.9)
        let title = (analysis.path as NSString).lastPathComponent
        text(cr, "\(title)   \(figure(analysis.loudness.integrated)) LUFS integrated   \(figure(analysis.loudness.range)) LU range   "
             + "\(figure(analysis.loudness.truePeak)) dBTP true peak", x: m.left, y: 18)

        drawWaveform(cr, data, in: wave)
        drawSpectrogram(cr, data, in: spectrum)
        drawLoudness(cr, data, integrated: analysis.loudness.integrated, in: loudness)
        for panel in [wave, spectrum, loudness] { timeAxis(cr, seconds: seconds, under: panel) }
        color(cr, 0.75, 0.75, 0.75)
        text(cr, "time (s)", x: m.left + plotWidth - 44, y: Double(height) - 6)
    }

    private func drawWaveform(_ cr: OpaquePointer, _ data: PictureData, in panel: Panel) {
        frame(cr, panel, label: "waveform")
        let lane = panel.height / Double(data.channelCount)
        for channel in 0..<data.channelCount {
            let middle = panel.y + lane * (Double(channel) + 0.5), half = lane / 2 - 1
            color(cr, 0.3, 0.3, 0.35)
            line(cr, panel.x, middle, panel.x + panel.width, middle)
            color(cr, 0.35, 0.65, 1)
            cairo_set_line_width(cr, 1)
            for column in 0..<data.columns {
                let x = panel.x + Double(column) + 0.5
                let top = middle - Double(max(-1, min(1, data.maximum[channel][column]))) * half
                let bottom = middle - Double(max(-1, min(1, data.minimum[channel][column]))) * half
                cairo_move_to(cr, x, top)
                cairo_line_to(cr, x, max(bottom, top + 1))
            }
            cairo_stroke(cr)
            color(cr, 0.75, 0.75, 0.75)
            if data.channelCount > 1 { text(cr, "ch \(channel)", x: 8, y: middle + 4) }
        }
        color(cr, 1, 0.2, 0.2)
        for column in 0..<data.columns where data.clipped[column] {
            cairo_rectangle(cr, panel.x + Double(column), panel.y, 1, 5)
        }
        cairo_fill(cr)
    }

    private func drawSpectrogram(_ cr: OpaquePointer, _ data: PictureData, in panel: Panel) {
        let rows = Int(panel.height), columns = data.spectrogram.count
        guard rows > 0, columns > 0, let image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(columns), Int32(rows)) else { return }
        cairo_surface_flush(image)
        let stride = Int(cairo_image_surface_get_stride(image))
        let pixels = cairo_image_surface_get_data(image)!
        for row in 0..<rows {
            // The top row is the highest band.
            let band = min(data.bands - 1, (rows - 1 - row) * data.bands / rows)
            let line = UnsafeMutableRawPointer(pixels + row * stride).assumingMemoryBound(to: UInt32.self)
            for column in 0..<columns { line[column] = Self.heat(data.spectrogram[column][band]) }
        }
        cairo_surface_mark_dirty(image)
        cairo_save(cr)
        cairo_rectangle(cr, panel.x, panel.y, panel.width, panel.height)
        cairo_clip(cr)
        cairo_translate(cr, panel.x, panel.y)
        cairo_scale(cr, panel.width / Double(columns), 1)
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
        cairo_surface_destroy(image)
        frame(cr, panel, label: "spectrogram of the channels mixed (black -120 dB, pale yellow 0 dB)")
        // Frequency labels on the log axis.
        let nyquist = data.sampleRate / 2
        color(cr, 0.75, 0.75, 0.75)
        for frequency in [50.0, 100, 200, 500, 1000, 2000, 5000, 10000, 20000] where frequency < nyquist {
            let y = panel.y + panel.height * (1 - log(frequency / 20) / log(nyquist / 20))
            line(cr, panel.x - 4, y, panel.x, y)
            text(cr, frequency >= 1000 ? "\(Int(frequency / 1000))k" : "\(Int(frequency))", x: 20, y: y + 4)
        }
        text(cr, "Hz", x: 8, y: panel.y - 6)
    }

    private func drawLoudness(_ cr: OpaquePointer, _ data: PictureData, integrated: Double, in panel: Panel) {
        frame(cr, panel, label: "short-term loudness (LUFS)")
        let floor = -60.0, top = 0.0
        func y(_ lufs: Double) -> Double { panel.y + panel.height * (1 - (max(floor, min(top, lufs)) - floor) / (top - floor)) }
        color(cr, 0.75, 0.75, 0.75)
        for lufs in stride(from: floor, through: top, by: 20) {
            line(cr, panel.x - 4, y(lufs), panel.x, y(lufs))
            text(cr, "\(Int(lufs))", x: 24, y: y(lufs) + 4)
        }
        let seconds = Double(data.frameCount) / data.sampleRate
        color(cr, 1, 0.75, 0.3)
        cairo_set_line_width(cr, 1.5)
        var started = false
        for (step, value) in data.shortTerm.enumerated() where value.isFinite {
            let x = panel.x + panel.width * min(1, Double(step + 1) * 0.1 / seconds)
            if started { cairo_line_to(cr, x, y(value)) } else { cairo_move_to(cr, x, y(value)); started = true }
        }
        cairo_stroke(cr)
        if integrated.isFinite {
            color(cr, 0.9, 0.9, 0.9)
            let dashes = [4.0, 3.0]
            cairo_set_dash(cr, dashes, 2, 0)
            line(cr, panel.x, y(integrated), panel.x + panel.width, y(integrated))
            cairo_set_dash(cr, nil, 0, 0)
            text(cr, "integrated \(figure(integrated))", x: panel.x + 6, y: y(integrated) - 4)
        }
    }

    /// Ticks and seconds under a panel, at 1, 2 or 5 times a power of ten apart.
    private func timeAxis(_ cr: OpaquePointer, seconds: Double, under panel: Panel) {
        guard seconds > 0 else { return }
        let rough = seconds / max(1, panel.width / 90)
        let power = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        color(cr, 0.75, 0.75, 0.75)
        var time = 0.0
        while time <= seconds + step * 1e-9 {
            let x = panel.x + panel.width * time / seconds
            line(cr, x, panel.y + panel.height, x, panel.y + panel.height + 4)
            let label = step < 1 ? String(format: "%.\(max(1, Int(-log10(step).rounded(.up))))f", time) : "\(Int(time.rounded()))"
            text(cr, label, x: x - 8, y: panel.y + panel.height + 16)
            time += step
        }
    }

    private func frame(_ cr: OpaquePointer, _ panel: Panel, label: String) {
        color(cr, 0.45, 0.45, 0.5)
        cairo_set_line_width(cr, 1)
        cairo_rectangle(cr, panel.x - 0.5, panel.y - 0.5, panel.width + 1, panel.height + 1)
        cairo_stroke(cr)
        color(cr, 0.9, 0.9, 0.9)
        text(cr, label, x: panel.x, y: panel.y - 6)
    }

    private func color(_ cr: OpaquePointer, _ red: Double, _ green: Double, _ blue: Double) { cairo_set_source_rgb(cr, red, green, blue) }

    private func line(_ cr: OpaquePointer, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        cairo_set_line_width(cr, 1)
        cairo_move_to(cr, x0, y0)
        cairo_line_to(cr, x1, y1)
        cairo_stroke(cr)
    }

    private func text(_ cr: OpaquePointer, _ string: String, x: Double, y: Double) {
        cairo_move_to(cr, x, y)
        cairo_show_text(cr, string)
    }

    private func figure(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }

    /// -120 dB black through purple, red and orange to 0 dB pale yellow.
    static func heat(_ decibels: Float) -> UInt32 {
        let stops: [(Float, Float, Float)] = [(0, 0, 0), (0.23, 0.06, 0.43), (0.71, 0.21, 0.47), (0.98, 0.53, 0.2), (0.99, 0.99, 0.75)]
        let t = max(0, min(1, (decibels + 120) / 120)) * Float(stops.count - 1)
        let index = min(stops.count - 2, Int(t)), f = t - Float(index)
        let (a, b) = (stops[index], stops[index + 1])
        func channel(_ x: Float, _ y: Float) -> UInt32 { UInt32(max(0, min(255, (x + (y - x) * f) * 255))) }
        return channel(a.0, b.0) << 16 | channel(a.1, b.1) << 8 | channel(a.2, b.2)
    }
}
