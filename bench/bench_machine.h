/* The "machine:" line every benchmark prints first (CPU model, architecture, cores), so that a
 * reported ratio says where it was measured. Header-only, shared by bench/. */
#ifndef NPK_BENCH_MACHINE_H
#define NPK_BENCH_MACHINE_H

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static inline void npk_bench_machine(void)
{
    struct utsname u;
    char line[512], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *v = strchr(line, ':');
                if (v) {
                    v += 1 + strspn(v + 1, " \t");
                    v[strcspn(v, "\n")] = 0;
                    snprintf(model, sizeof model, "%s", v);
                }
                break;
            }
        fclose(f);
    }
    printf("machine: %s, %s, %ld cores\n", uname(&u) == 0 ? u.machine : "unknown", model,
           sysconf(_SC_NPROCESSORS_ONLN));
}

#endif
