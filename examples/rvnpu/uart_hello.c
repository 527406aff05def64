/* rvnpu "uart_hello": prints a line through the 16550-subset UART at 0x1000_0000 (spec §11.5)
 * instead of a syscall, polling LSR bit 5 before each byte as real 16550 drivers must.
 * Needs npukit's rvnpu machine: qemu-user has no UART and would fault on the first access. */
#include <stdint.h>

#define UART_BASE 0x10000000u
#define UART_THR  0 /* transmit holding register (write) */
#define UART_LSR  5 /* line status register (read) */
#define LSR_THRE  0x20 /* transmitter empty: safe to write THR */

static void uart_putc(char c)
{
    volatile uint8_t *uart = (volatile uint8_t *)UART_BASE;
    while ((uart[UART_LSR] & LSR_THRE) == 0) {
        /* rvnpu's transmitter is always empty, but a driver must not assume it */
    }
    uart[UART_THR] = (uint8_t)c;
}

static void uart_puts(const char *s)
{
    while (*s != '\0')
        uart_putc(*s++);
}

int main(void)
{
    uart_puts("hello from rvnpu firmware (uart)\n");
    return 0;
}
