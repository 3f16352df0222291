/* Layout of the session screen, computed apart from painting: tab line,
 * the current view, the timeline strip, the status bar and the message or
 * prompt line.  Drawn on any canvas (a test draws on a memory grid). */
#ifndef CLRSCOPE_SCREEN_H
#define CLRSCOPE_SCREEN_H

#include "ui/canvas.h"
#include "ui/session_screen.h"

/* Lines of the view area for a canvas of rows lines. */
int screen_view_height(int rows);
/* The first line of the view area (its title row). */
#define SCREEN_VIEW_TOP 1

void screen_draw_session(struct session_screen *s, struct canvas *c);
/* A click on the timeline puts the time cursor on that second (true when
 * one was there). */
bool screen_click_timeline(struct session_screen *s, int y, int x);
/* The status bar text alone (also used by tests). */
void screen_status_text(struct session_screen *s, char *out, size_t n);

#endif
