/* policy_bench.c -- the synthetic bench app (shared/bench/synthapp/gen.py)
 * as the crawler sees it: every dangerous control, with and without
 * data-uiap-risk="blocked", must not be allowed in safe_explore, while the
 * controls that make up its states (nav links, tabs, the Actions menu
 * button, accordion panels, Open details / Close) must be. Subjects are
 * built the way the page's markup describes them. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "pol.h"

#define O "http://127.0.0.1:8000"

/* Names as gen.py generates them. */
static const char *const ADJ[] = {"Amber", "Brisk", "Cobalt", "Dusky", "Ember", "Fable",
  "Gilded", "Hollow", "Ivory", "Jade", "Kindred", "Lunar", "Mellow", "Nimble", "Onyx",
  "Polar", "Quiet", "Russet", "Silver", "Tawny", "Umber", "Velvet", "Wild", "Zephyr"};
static const char *const NOUN[] = {"Falcon", "Harbor", "Meadow", "Summit", "Lantern",
  "Orchard", "Canyon", "Beacon", "Glacier", "Willow", "Comet", "Thicket", "Quarry", "Delta",
  "Prairie", "Reef", "Spire", "Tundra", "Vale", "Grove"};
static const char *const ACC_TITLES[] = {"Description", "Specifications", "Milestones",
  "Team", "Budget", "Risks", "Dependencies", "Glossary"};
static const char *const TABS[] = {"Overview", "Activity", "Files", "Notes", "Budget",
  "Reviews", "Releases", "Metrics", "Settings"};

static pol_decision run(const pol_subject *s, pol_classification *c)
{
  pol_decision d;
  cr_assert_eq(pol_classify(s, c), POL_OK);
  cr_assert_eq(pol_decide(NULL, s, c, &d), POL_OK);
  return d;
}

Test(policy_bench, dangerous_controls_are_never_allowed)
{
  static const char *const toolbar[] = {"Reset workspace", "Archive all records",
                                        "Purge cache", "Transfer ownership"};
  pol_subject cs[16];
  size_t n = 0;
  for (int blocked = 0; blocked < 2; blocked++) {
    const char *risk = blocked ? "blocked" : NULL;
    for (size_t i = 0; i < 4; i++)
      cs[n++] = (pol_subject){.role = "button", .tag = "BUTTON", .input_type = "button",
                              .name = toolbar[i], .risk = risk, .page_origin = O};
    cs[n++] = (pol_subject){.role = "menuitem", .tag = "LI", .name = "Remove all members",
                            .container_role = "menu", .context = "Project actions",
                            .risk = risk, .page_origin = O};
    cs[n++] = (pol_subject){.role = "button", .input_type = "button", .name = "Delete project",
                            .context = "Danger zone", .risk = risk, .page_origin = O};
    cs[n++] = (pol_subject){.role = "button", .input_type = "button", .name = "Revoke API keys",
                            .context = "Danger zone", .risk = risk, .page_origin = O};
    cs[n++] = (pol_subject){.role = "button", .input_type = "button", .name = "Log out",
                            .risk = risk, .page_origin = O};
  }
  for (size_t i = 0; i < n; i++) {
    pol_classification c;
    pol_decision d = run(&cs[i], &c);
    cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s%s: %s", cs[i].name,
                 cs[i].risk ? " (blocked)" : "", d.text);
    /* and without the context the crawler might not have */
    pol_subject bare = cs[i];
    bare.context = NULL;
    d = run(&bare, &c);
    cr_expect_eq(d.effect, POL_EFFECT_DENY, "%s without context: %s", bare.name, d.text);
  }
}

Test(policy_bench, state_controls_are_allowed)
{
  pol_classification c;
  pol_decision d;
  char href[64];
  for (size_t a = 0; a < sizeof ADJ / sizeof ADJ[0]; a++)
    for (size_t b = 0; b < sizeof NOUN / sizeof NOUN[0]; b++) {
      char name[64];
      snprintf(name, sizeof name, "%s %s", ADJ[a], NOUN[b]);
      snprintf(href, sizeof href, O "/#/r%zu", a * 20 + b);
      pol_subject s = {.role = "link", .tag = "A", .name = name, .href = href,
                       .page_origin = O, .context = "Projects", .action = "nav.navigate"};
      d = run(&s, &c);
      cr_expect_eq(c.side_effect, POL_SE_NAVIGATION, "nav link %s: %s", name, c.rule);
      cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "nav link %s: %s", name, d.text);
    }
  for (size_t t = 0; t < sizeof TABS / sizeof TABS[0]; t++) {
    pol_subject s = {.role = "tab", .tag = "BUTTON", .name = TABS[t], .has_aria_controls = 1,
                     .container_role = "tablist", .context = "Project sections"};
    d = run(&s, &c);
    cr_expect_eq(c.side_effect, POL_SE_LOCAL_UI, "tab %s", TABS[t]);
    cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "tab %s: %s", TABS[t], d.text);
  }
  for (size_t k = 0; k < sizeof ACC_TITLES / sizeof ACC_TITLES[0]; k++) {
    pol_subject s = {.role = "button", .name = ACC_TITLES[k], .has_aria_expanded = 1,
                     .has_aria_controls = 1, .context = "Overview"};
    d = run(&s, &c);
    cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "accordion %s: %s", ACC_TITLES[k], d.text);
    cr_expect_str_eq(c.rule, "signal.expanded");
  }
  pol_subject actions = {.role = "button", .name = "Actions", .aria_haspopup = "menu",
                         .has_aria_controls = 1, .has_aria_expanded = 1};
  d = run(&actions, &c);
  cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "Actions: %s", d.text);
  pol_subject open = {.role = "button", .name = "Open details", .aria_haspopup = "dialog",
                      .context = "Activity"};
  d = run(&open, &c);
  cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "Open details: %s", d.text);
  pol_subject close = {.role = "button", .input_type = "button", .name = "Close",
                       .container_role = "dialog", .context = "Amber Falcon details"};
  d = run(&close, &c);
  cr_expect_eq(d.effect, POL_EFFECT_ALLOW, "Close: %s", d.text);
}

Test(policy_bench, save_settings_is_not_executed)
{
  /* <form id="settings" novalidate> (no method) ... <button type="submit">Save settings */
  pol_subject s = {.role = "button", .tag = "BUTTON", .input_type = "submit",
                   .name = "Save settings", .is_submit = 1, .form_action = O "/#/r0",
                   .page_origin = O, .context = "Settings"};
  pol_classification c;
  pol_decision d = run(&s, &c);
  cr_assert_eq(c.side_effect, POL_SE_WRITE, "%s", c.rule);
  cr_assert_str_eq(c.rule, "lexicon.en.save");
  cr_assert_neq(d.effect, POL_EFFECT_ALLOW, "%s", d.text);
  pol_policy sandbox = {.mode = POL_MODE_SANDBOX_WRITE};
  pol_decide(&sandbox, &s, &c, &d);
  cr_assert_eq(d.effect, POL_EFFECT_REVIEW, "a write needs a human even in a sandbox");
}

Test(policy_bench, safe_menu_items_are_not_clicked)
{
  /* The app's own "safe" menu items only toast; the policy cannot know that
   * and keeps them: duplicate is a write, share and export leave the app. */
  static const struct { const char *name; pol_side_effect se; } items[] = {
    {"Duplicate project", POL_SE_WRITE},
    {"Share link", POL_SE_EXTERNAL_EFFECT},
    {"Export CSV", POL_SE_EXTERNAL_EFFECT},
  };
  for (size_t i = 0; i < 3; i++) {
    pol_subject s = {.role = "menuitem", .name = items[i].name, .container_role = "menu",
                     .context = "Project actions"};
    pol_classification c;
    pol_decision d = run(&s, &c);
    cr_expect_eq(c.side_effect, items[i].se, "%s: %s", items[i].name, c.rule);
    cr_expect_neq(d.effect, POL_EFFECT_ALLOW, "%s", items[i].name);
  }
}

Test(policy_bench, observe_only_clicks_nothing)
{
  pol_policy obs = {.mode = POL_MODE_OBSERVE_ONLY};
  pol_subject s[] = {
    {.role = "tab", .name = "Activity"},
    {.role = "button", .name = "Actions", .aria_haspopup = "menu"},
    {.role = "link", .name = "Amber Falcon", .href = O "/#/r1", .page_origin = O},
  };
  for (size_t i = 0; i < 3; i++) {
    pol_classification c;
    pol_decision d;
    pol_classify(&s[i], &c);
    pol_decide(&obs, &s[i], &c, &d);
    cr_expect_eq(d.effect, POL_EFFECT_SKIP, "%s: %s", s[i].name, d.text);
  }
}
