/* rvnpu firmware built outside npukit with the installed SDK (tests/install): a dot product
 * on the NPU's MAC unit, printed through the SDK's syscalls; exits with 0 when it is right. */
#include "npu.h"
#include "syscalls.h"

int main(void)
{
    static const int32_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, -8};
    NPU_RSTACC();
    for (int i = 0; i < 4; i++)
        NPU_MACC(a[i], b[i]);
    int32_t dot = NPU_RSTACC(); /* 5 + 12 + 21 - 32 = 6 */
    char line[] = "installed SDK: dot = ?\n";
    line[sizeof line - 3] = (char)('0' + dot);
    write(1, line, sizeof line - 1);
    return dot == 6 ? 0 : 1;
}
