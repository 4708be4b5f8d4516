/// `1 device`, `2 devices`: a count with its noun in the right number (`plural` when it is not the noun and "s").
func counted(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? noun : plural ?? noun + "s")
}
