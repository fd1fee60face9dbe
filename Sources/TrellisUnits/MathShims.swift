import Glibc

@inline(__always)
func _exp(_ x: Double) -> Double { Glibc.exp(x) }
