// conversion: Float32 → Int16, Int16 → Float32, Float32 → Int16 with TPDF dither; each beside
// a plain C loop with the same semantics.
import CBenchReferences
import DSPCore

enum ConversionKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        let int16Out = Scratch<Int16>(count: n, repeating: 0)
        let floatOut = Scratch<Float>(count: n, repeating: 0)
        let int16In = audio.int16
        let sink = Sink()
        var kernels: [Kernel] = []

        func add(_ group: String, _ name: String, ours: Bool, step: @escaping (Int) -> Bool, reset: @escaping () -> Void = {}) {
            kernels.append(Kernel(
                suite: .conversion, group: group, name: name,
                implementation: ours ? "SpeechDSP" : "C reference", slug: ours ? "speechdsp" : "c-reference",
                isOurs: ours, isGroupReference: ours, frames: frames, audioSecondsPerPass: seconds,
                reset: reset, sink: sink, step: step))
        }

        // Float32 → Int16.
        add("float32-to-int16", "Float32 → Int16", ours: true) { i in
            let report = Int16Conversion.convert(frames[i], into: int16Out.buffer)
            sink.count &+= report.clippedCount &+ report.nanCount
            return true
        }
        if context.compare {
            add("float32-to-int16", "Float32 → Int16", ours: false) { i in
                let report = cbs_ref_float_to_int16(frames[i].baseAddress, int16Out.pointer, n)
                sink.count &+= report.clipped &+ report.nans
                return true
            }
        }

        // Int16 → Float32.
        add("int16-to-float32", "Int16 → Float32", ours: true) { i in
            let input = UnsafeBufferPointer(start: int16In.pointer + i * n, count: n)
            Int16Conversion.convert(input, into: floatOut.buffer)
            return true
        }
        if context.compare {
            add("int16-to-float32", "Int16 → Float32", ours: false) { i in
                cbs_ref_int16_to_float(int16In.pointer + i * n, floatOut.pointer, n)
                return true
            }
        }

        // Float32 → Int16 with TPDF dither.
        let converter = Int16Converter(dither: .triangular(seed: 1))
        add("float32-to-int16-dithered", "Float32 → Int16, TPDF dither", ours: true,
            step: { i in
                let report = converter.convert(frames[i], into: int16Out.buffer)
                sink.count &+= report.clippedCount &+ report.nanCount
                return true
            },
            reset: { converter.reset() })
        if context.compare {
            let state = Scratch<UInt64>(count: 1, repeating: 1)
            add("float32-to-int16-dithered", "Float32 → Int16, TPDF dither", ours: false,
                step: { i in
                    let report = cbs_ref_float_to_int16_dithered(frames[i].baseAddress, int16Out.pointer, n, state.pointer)
                    sink.count &+= report.clipped &+ report.nans
                    return true
                },
                reset: { state.pointer.pointee = 1 })
        }
        if context.compare { checkEquivalence(frames: frames, int16In: int16In, notes: context.notes) }
        return kernels
    }

    /// Checks, outside timing, that each C reference gives bit-identical output and counts to
    /// SpeechDSP's on the benchmark audio; a mismatch is noted in the report.
    static func checkEquivalence(frames: FrameSource, int16In: Scratch<Int16>, notes: Notes) {
        let n = frames.samplesPerFrame
        let ours = Scratch<Int16>(count: n, repeating: 0)
        let theirs = Scratch<Int16>(count: n, repeating: 0)
        let oursFloat = Scratch<Float>(count: n, repeating: 0)
        let theirsFloat = Scratch<Float>(count: n, repeating: 0)
        let converter = Int16Converter(dither: .triangular(seed: 1))
        var state: UInt64 = 1
        var plain = true, dithered = true, back = true
        for i in 0..<frames.count {
            let a = Int16Conversion.convert(frames[i], into: ours.buffer)
            let b = cbs_ref_float_to_int16(frames[i].baseAddress, theirs.pointer, n)
            plain = plain && a.clippedCount == b.clipped && a.nanCount == b.nans && ours.buffer.elementsEqual(theirs.buffer)
            let c = converter.convert(frames[i], into: ours.buffer)
            let d = cbs_ref_float_to_int16_dithered(frames[i].baseAddress, theirs.pointer, n, &state)
            dithered = dithered && c.clippedCount == d.clipped && c.nanCount == d.nans && ours.buffer.elementsEqual(theirs.buffer)
            let input = UnsafeBufferPointer(start: int16In.pointer + i * n, count: n)
            Int16Conversion.convert(input, into: oursFloat.buffer)
            cbs_ref_int16_to_float(input.baseAddress, theirsFloat.pointer, n)
            back = back && oursFloat.buffer.elementsEqual(theirsFloat.buffer)
        }
        if !plain { notes.add("conversion: the C reference Float32 → Int16 differs from SpeechDSP on this audio") }
        if !dithered { notes.add("conversion: the C reference dithered conversion differs from SpeechDSP on this audio") }
        if !back { notes.add("conversion: the C reference Int16 → Float32 differs from SpeechDSP on this audio") }
    }
}
