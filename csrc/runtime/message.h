/*
 * Error-message formatting: the runtime's only use of the printf family. A firmware
 * build that should not link it defines AP_NO_ERROR_MESSAGES: every ap_error is still
 * filled (status, subject, indices, bytes needed and available), only its message is
 * left empty. Not a public header.
 */
#ifndef ARENAPLAN_MESSAGE_H
#define ARENAPLAN_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>

#ifndef AP_NO_ERROR_MESSAGES
#include <stdio.h>
#endif

/* vsnprintf into out[size], or an empty string under AP_NO_ERROR_MESSAGES. */
static inline void ap_message_vformat(char *out, size_t size, const char *format, va_list args)
{
#ifdef AP_NO_ERROR_MESSAGES
    (void)format;
    (void)args;
    if (size > 0) {
        out[0] = '\0';
    }
#else
    vsnprintf(out, size, format, args);
#endif
}

/* snprintf into out[size], or an empty string under AP_NO_ERROR_MESSAGES. */
static inline void ap_message_format(char *out, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    ap_message_vformat(out, size, format, args);
    va_end(args);
}

#endif
