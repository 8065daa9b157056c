"""Writes one C function with N two-deep loop nests of 12 stores each (N from argv):
a function of tens of thousands of instructions in which detection names every one."""
import sys

n = int(sys.argv[1])
lines = ["#define N 64", "double a[N][N], b[N][N], c[N][N];", "void big(int n, double s) {"]
for k in range(n):
    lines.append("  for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++) {")
    for m in range(6):
        lines.append(f"    a[i][j] = b[i][j-1] * {k + m + 1}.0 + c[i-1][j] * s;")
        lines.append(f"    c[i][j] = a[i][j] - {m}.5 * b[i+1][j];")
    lines.append("  }")
lines.append("}")
print("\n".join(lines))
