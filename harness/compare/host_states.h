#pragma once
// Which launches of a history found the host in the state tonight's launch found it in.
//
// A host moves between states that change every point of a launch together, by up to 2.5x on
// this project's VM (which cores the ranks share, where their pages lie). Within a history that
// holds two states, a night in the rarer one looks like a regression at every point, and no
// spread between launches can tell the two apart: a shift every point shares is one draw per
// night however many points share it. So each launch carries a probe of its host's state that
// does not depend on what is compared (harness/plan/host_probe.h: how fast the ranks copy memory,
// at the run's start, middle and end), and tonight is judged against the launches whose probe
// agrees with tonight's only.
//
// A launch's signature is, per size, the median of its moments' log copy rates: the state it
// spent most of its sweep in. On this project's VM a launch whose start and middle copied 25%
// slower than its history and whose end did not ran 12% slower at every point; its fastest
// moment would have placed it with its history, and it alerted. The probe is steadier at some
// sizes than others (copies that fit the caches repeat within 2% inside a launch, those of 1 MiB
// and more within 20%), so each size has its own tolerance: kStateSpreads times its noise (the
// median over the launches compared of the range of a launch's moments over its expected range
// in standard deviations, 1.128 for two moments, 1.693 for three), and at least kStateFloor. Two
// launches share a state when their signatures differ by at most the tolerance at every size
// both hold. A history launch without a probe (a file before schema 20) cannot be placed and
// lends nothing when tonight has one; when tonight or every history launch lacks one, the
// history is taken as one state, as before probes.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/plan/host_probe.h"

namespace collbench {

// docs/nightly.md, "The host's state", says how these were measured.
inline constexpr double kStateSpreads = 4;
inline constexpr double kStateFloor = 0.10;
// The most a host state has moved every point of a launch on this project's VM (2.2x, and 2.5x
// for OSU's launches): a night in a state its history lacks is judged against every launch, and
// only a change beyond this is SLOWER or FASTER; the rest is UNSURE.
inline constexpr double kHostStateReach = 2.5;

struct HostStateMatch {
  bool probed = false;  // tonight and some history launch hold a probe
  // Per history launch, its state: 0 tonight's, the others numbered in the order first seen
  // (launches agreeing with that state's first); every one 0 when not probed, and a launch past
  // the end is in tonight's (a match of no history: one state). The other states lend their
  // spread between launches, pooled within each, never their level.
  std::vector<std::size_t> state_of;
  std::size_t unprobed = 0;   // history launches without a probe, left out when probed
  bool base_in_state = true;  // a BASE judged with the history's spread: in NEW's state
  std::size_t state(std::size_t launch) const {
    return launch < state_of.size() ? state_of[launch] : 0;
  }
  bool in_state(std::size_t launch) const { return state(launch) == 0; }
  std::size_t launches() const { return state_of.size(); }
  std::size_t matched() const;  // the launches in tonight's state
  // Fewer than two launches of tonight's state (or a BASE in another): the verdict then takes
  // every launch as one state, and only a change beyond kHostStateReach is one.
  bool changed() const { return !base_in_state || (probed && matched() < 2); }
  // Why, when changed(); else empty.
  std::string host_changed() const;
};

// "matched" (tonight's state holds two or more launches of the history), "host_changed" (fewer),
// "no probe" (tonight or the whole history lacks one: the history taken as one state).
std::string_view host_state_status(const HostStateMatch& match);

// Per probe size, the largest log difference of two launches' signatures within one state, from
// the probes of the launches compared.
std::map<std::size_t, double> state_tolerances(std::span<const HostProbe> probes);

// Whether two launches' signatures agree within `tolerances` at every size both hold; false when
// they share none.
bool same_state(const HostProbe& a, const HostProbe& b,
                const std::map<std::size_t, double>& tolerances);

// The history's launches in tonight's state; with a BASE judged by the history's spread
// (`compare --history`), also whether BASE shares NEW's (`tonight`'s) state.
HostStateMatch match_host_state(std::span<const HostProbe> history, const HostProbe& tonight,
                                const HostProbe& base = {});

}  // namespace collbench
