"""Ratings (RULES 15.7): Glicko-2, as Glickman publishes it ("Example of the Glicko-2 system", 2013).

A rating period is one round. Each match with a result is one game for both
players (a win 1, a loss 0); a bye and a forfeit give no result. A player with
no result in a round only has their deviation grow. Ratings never change
pairings or standings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from referee.events.rules import rule

SCALE = 173.7178  # Glicko-2's ratio of the Glicko scale to its own
BASE = 1500.0
TAU = 0.5  # the system constant (RULES 15.7)
EPSILON = 0.000001  # the convergence tolerance of the volatility's iteration


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


@rule("15.7")
def update(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period of ``games`` (each the opponent's rating before the
    period, and the score: 1 a win, 0 a loss). Steps 2–8 of Glickman's algorithm."""
    mu = (player.rating - BASE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    v_inverse = 0.0
    delta_sum = 0.0
    for opponent, score in games:
        mu_j, phi_j = (opponent.rating - BASE) / SCALE, opponent.rd / SCALE
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inverse
    delta = v * delta_sum
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(SCALE * mu_new + BASE, SCALE * phi_new, sigma_new)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)
