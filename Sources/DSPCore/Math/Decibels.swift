import RealModule

/// Decibel arithmetic relative to digital full scale.
///
/// Full scale is amplitude 1.0 (Float32) or 32768 (Int16). Zero maps to −∞ dB and −∞ dB back
/// to zero; the API never clamps to an arbitrary floor. File formats that cannot represent −∞
/// document their own encoding.
public enum Decibels {
    /// `10 · log10(power)`: a mean square (or any power ratio) in dB. 0 → −∞.
    @inlinable
    public static func fromPower(_ power: Double) -> Double {
        power > 0 ? 10 * Double.log10(power) : (power == 0 ? -.infinity : .nan)
    }

    /// `20 · log10(|amplitude|)`: an amplitude ratio in dB. 0 → −∞.
    @inlinable
    public static func fromAmplitude(_ amplitude: Double) -> Double {
        let a = Swift.abs(amplitude)
        return a > 0 ? 20 * Double.log10(a) : (a == 0 ? -.infinity : .nan)
    }

    /// `10^(dB / 20)`: the amplitude of a level in dB. −∞ → 0.
    @inlinable
    public static func toAmplitude(_ decibels: Double) -> Double {
        Double.pow(10, decibels / 20)
    }

    /// `10^(dB / 10)`: the power of a level in dB. −∞ → 0.
    @inlinable
    public static func toPower(_ decibels: Double) -> Double {
        Double.pow(10, decibels / 10)
    }

    /// The AES17 offset, `10 · log10(2)` ≈ 3.0103 dB: a full-scale sine has mean square ½, so
    /// sine-referenced levels read 0 dB where `10·log10(mean x²)` reads −3.01 dBFS.
    public static let aes17SineOffset: Double = 3.010_299_956_639_812
}
