// @ts-check
// The page's own words in English and Japanese, and the event log in words.
// Action labels and violation details come from the referee (Accept-Language).

export const KIND = {
  en: { case: "Case", fairy: "Fairy", evidence: "Evidence", spell: "Spell", counter: "Counter", bonus: "Bonus" },
  ja: { case: "事件", fairy: "妖精", evidence: "証拠", spell: "妖力", counter: "魔気", bonus: "ノーマル" },
};

const UI = {
  en: {
    title: "Ace File '99 table", tab_deal: "Deal", tab_play: "Play", tab_replay: "Replay",
    player_1: "Player 1", player_2: "Player 2", name: "Name", deck: "Deck", options: "Options",
    seed: "Seed", first_player: "First player", from_seed: "from the seed", windows: "Response windows",
    windows_auto: "auto", windows_strict: "strict", deal: "Deal", paste: "Paste a deck…",
    deal_hint: "Hot-seat: both players at this screen. When the referee runs in private mode, each player gets a seat and a link, and plays on their own device.",
    legal_actions: "Legal actions", event_log: "Events", close: "Close", load: "Load",
    failing_action: "Failing action", turn: "Turn", step: "step", active: "to act", file: "File", trash: "Trash",
    hand: "Hand", standby: "Standby", cases: "Cases", no_cases: "no case in play",
    steps: { mulligan: "mulligan", case: "case step", main: "main step", end: "end step" },
    phase_over: "game over", waiting: "Waiting for {name}.", responds: "{name} must respond (a counter, or pass)",
    winner: "{name} wins ({reason})", reasons: { deck_out: "deck out", concede: "concession", time: "time" },
    seat: "Seat", follow: "Follow whoever acts", hot_seat: "hot-seat", private: "private seat",
    curtain: "Pass the device to {name}.", curtain_go: "Show {name}'s hand",
    no_actions: "Nothing to do now: it is {name}'s move.", over_actions: "The game is over.",
    pick_target: "Choose a target for {card}, or pick an action.", clear: "Clear",
    illegal: "Not legal", rule: "Rule", invite: "Invite link for {name} (their seat):",
    invite_device: "Link for {name} (their seat, any device)", watch_link: "Watch link (spectators)",
    no_ledger: "This referee keeps no ledger (REFEREE_LEDGER), so the invite carries the whole game and the two tabs follow each other in this browser only.",
    copy: "Copy", private_mode: "Private mode: you hold {name}'s seat only.",
    actioned: "actioned", face_down: "face down", power: "Power", level: "Level", hit: "Hit", cost: "Cost",
    of_trash: "{name}'s trash", position: "action {i} of {n}", start: "the deal",
    refused_at: "Action {i} is refused: rule {rule} ({code}). {detail}", loaded: "{n} action(s)",
    sample_hint: "Decks of the built-in catalog", no_shuffle: "Keep the deck order (no shuffle)", pending: "Pending", seq: "seq",
    groups: { setup: "Opening hand", case: "Case step", play: "Play a card", dispatch: "Dispatch and recall",
      investigate: "Investigate", spells: "Spells, abilities, counters", turn: "Turn", other: "Other" },
    card_actions: "What {card} can do now", no_card_actions: "Nothing to do with {card} now.",
    targets_hint: "or click a highlighted card to choose the target.", all_actions: "All actions",
    undo_note: "(hot-seat only)", place_face_down: "your opponent's {nth} case, face down",
    replay_this: "Replay this game from the deal", trash_empty: "The trash is empty.", new_game: "New game", undo: "Undo",
    undo_hint: "Hot-seat only: step back one move (this page's own history).", undone: "Move undone.",
    format: "Format", no_format: "none (every card)", format_latest: "{name} ({from})",
    format_as_of: "{name} ({from}, earlier)", format_of_game: "Format: {name} ({revision})",
    deck_legal: "Legal{format}: {n} cards.", deck_in_format: " in {name}", deck_problems: "{n} problem(s):",
    line: "Line {n}", deck_code: "Deck code", deck_not_json: "the deck is not JSON",
    clock_match: "Clock and match", clock: "Clock", no_clock: "no clock", clock_custom: "other…",
    clock_initial: "Time each (s)", clock_increment: "Added a move (s)", match: "Match", match_1: "one game",
    match_3: "best of 3", match_5: "best of 5", clocks: "Clocks", time_out: "time is out",
    claim: "Claim the game: {name}'s time is out", match_score: "Game {game} of {best_of}: {a} {wa} – {wb} {b}",
    match_won: "{name} wins the match", next_game: "Next game: you lost this one, so you choose who plays first.",
    next_first: "{name} plays first", next_wait: "{name} lost this game and chooses who plays first in the next; this page moves to the next game once it is dealt.",
    download: "Download this game", final_moves: "Every move is final (no undo).",
    download_hot: "the record (.afr), the replay body and a scenario",
    download_seat: "your record (.afr): the whole one, with the seed, once the game is over",
    download_ledger: "your record (.afr), from the referee's ledger: the whole one on the device that dealt, once the game is over",
    record: "Record", record_line: "Line {n}", record_refused: "refused here",
    replay_drop: "Drop a record (.afr) or a replay file here, or choose one, or paste it below.",
    replay_hint: "Load a game record (.afr, what Download this game writes), a replay body ({\"game\" or \"state\", \"actions\"}) or the output of referee expand FILE (a scenario, its failing action marked).",
    game_over_note: "The game is over: {result}.", resumed: "Game restored from this browser.",
    first: "First", previous: "Previous", next: "Next", last: "Last", language: "Language",
    discard_pick: "End of turn: choose {n} card(s) of your hand to discard ({k} chosen), or take the suggestion below.",
    discard_these: "Discard {cards}", discard_choose: "Choose {n} more in your hand",
    card_text: "Card", opponent_hand: "{name}'s hand", your_hand: "{name}'s hand", board: "Table",
    opponent: "Opponent", opp_person: "a person (hot-seat, or their own device)", opp_computer: "the computer",
    bot: "Computer player", strength: "Strength", strength_quick: "quick (0.1 s a move)",
    strength_normal: "normal (0.5 s a move)", strength_strong: "strong (2 s a move)",
    computer_seat: "The computer plays", computer_name: "Computer",
    your_link: "Your link (this seat, to go on from any device)",
    caught_up: "The game had moved on (another device): here is the latest position.",
    watching: "Watching: you see what both players may see; nothing here can act.",
    watch_delay: "The game shown is {n} move(s) behind the game played.",
    thinking: "{name} (the computer) is thinking…", unreachable: "The referee cannot be reached; trying again…",
    ledger_down: "The referee's ledger is unreachable; trying again…",
    not_found_game: "This referee holds no such game (expired, or dealt elsewhere).",
    vs_computer: "Against the computer: {bot}, {strength}.", seen_hint: "read from the positions",
    links: "Links for this game", follow_note: "This page follows the game by itself.",
    copied: "Copied.", select_copy: "Selected: copy it (Ctrl+C, or long-press on a phone).",
    deal_hint_private: "Private mode: each player gets a seat and a link, and plays on their own device; a spectator gets a link too.",
    tab_event: "Event", ev_new: "New event", ev_names: "Players (one name a line)", ev_name: "Event name",
    ev_best_of: "Best of", ev_swiss: "Swiss rounds", ev_cut: "Top cut", ev_no_cut: "none", ev_start: "Start the event",
    ev_pair: "Pair the next round", ev_check: "Check the event", ev_download: "Download the event (JSON)",
    ev_load: "Load an event", ev_standings: "Standings", ev_rounds: "Rounds", ev_none: "No event yet: start one from a list of names, or load one.",
    ev_round: "Round {n}", ev_cut_round: "Round {n} (top cut)", ev_table: "Table", ev_players: "Players", ev_result: "Result",
    ev_bye: "Bye", ev_no_result: "—", ev_forfeits: "{name} forfeits", ev_result_of: "Result of table {n}: {a} – {b}",
    ev_drops: "{name} drops", ev_rank: "#", ev_player: "Player", ev_points: "Points", ev_record: "Record",
    ev_omw: "OMW", ev_gw: "GW", ev_ogw: "OGW", ev_rating: "Rating", ev_dropped: "Dropped", ev_dropped_yes: "dropped",
    ev_winner: "{name} wins the event.", ev_swiss_ended: "Swiss ended: no pairing without a rematch is left.",
    ev_paired: "Round {n} is paired.", ev_ok: "The event passes every check (RULES 15).",
    ev_names_repeated: "A name is repeated: {names}", ev_names_long: "A name is over 64 characters: {names}",
    ev_names_few: "An event needs 2 players at least.", ev_bad_file: "This file is not an event document: {detail}",
    ev_round_of: "round {n}", ev_table_of: "table {n}", ev_summary: "{name}: {players} players, best of {best_of}, seed {seed}",
  },
  ja: {
    title: "エースファイル'99 テーブル", tab_deal: "配る", tab_play: "対戦", tab_replay: "リプレイ",
    player_1: "プレイヤー1", player_2: "プレイヤー2", name: "名前", deck: "デッキ", options: "設定",
    seed: "シード", first_player: "先攻", from_seed: "シードで決める", windows: "対応ウィンドウ",
    windows_auto: "自動", windows_strict: "常に開く", deal: "配る", paste: "デッキを貼り付け…",
    deal_hint: "ホットシート：2人で同じ画面を使います。レフェリーが非公開モードのときは、各プレイヤーが自分の席とリンクを持ち、自分の端末で遊びます。",
    legal_actions: "できる行動", event_log: "経過", close: "閉じる", load: "読み込む",
    failing_action: "失敗した行動", turn: "ターン", step: "ステップ", active: "手番", file: "ファイル", trash: "トラッシュ",
    hand: "手札", standby: "待機", cases: "事件", no_cases: "場に事件なし",
    steps: { mulligan: "マリガン", case: "事件ステップ", main: "メインステップ", end: "エンドステップ" },
    phase_over: "ゲーム終了", waiting: "{name}の行動を待っています。", responds: "{name}が対応します（魔気かパス）",
    winner: "{name}の勝ち（{reason}）", reasons: { deck_out: "デッキ切れ", concede: "投了", time: "時間切れ" },
    seat: "席", follow: "手番の人に自動で切り替え", hot_seat: "ホットシート", private: "非公開の席",
    curtain: "{name}に交代してください。", curtain_go: "{name}の手札を表示",
    no_actions: "今はできる行動がありません：{name}の番です。", over_actions: "ゲームは終了しました。",
    pick_target: "{card}の対象を選ぶか、行動を選んでください。", clear: "解除",
    illegal: "できません", rule: "ルール", invite: "{name}への招待リンク（その人の席）：",
    invite_device: "{name}のリンク（その人の席・どの端末でも）", watch_link: "観戦リンク",
    no_ledger: "このレフェリーは台帳（REFEREE_LEDGER）を持たないため、招待リンクはゲーム全体を運び、二つのタブはこのブラウザの中でだけ同期します。",
    copy: "コピー", private_mode: "非公開モード：あなたは{name}の席だけを持っています。",
    actioned: "アクション済", face_down: "裏向き", power: "パワー", level: "レベル", hit: "ヒット", cost: "コスト",
    of_trash: "{name}のトラッシュ", position: "{n}手中{i}手目", start: "配った直後",
    refused_at: "{i}手目は不正です：ルール{rule}（{code}）。{detail}", loaded: "{n}手",
    sample_hint: "組み込みカタログのデッキ", no_shuffle: "デッキの順番のまま（シャッフルしない）", pending: "保留中", seq: "seq",
    groups: { setup: "最初の手札", case: "事件ステップ", play: "カードを出す", dispatch: "派遣・呼び戻し",
      investigate: "捜査", spells: "妖力・能力・魔気", turn: "ターン", other: "その他" },
    card_actions: "{card}で今できること", no_card_actions: "{card}で今できることはありません。",
    targets_hint: "または光っているカードをクリックして対象を選びます。", all_actions: "すべての行動",
    undo_note: "（ホットシートのみ）", place_face_down: "相手の{n}番目の事件（裏向き）",
    replay_this: "このゲームを最初からリプレイ", trash_empty: "トラッシュは空です。", new_game: "新しいゲーム", undo: "元に戻す",
    undo_hint: "ホットシートのみ：1手戻します（このページの履歴）。", undone: "1手戻しました。",
    format: "フォーマット", no_format: "なし（全カード）", format_latest: "{name}（{from}）",
    format_as_of: "{name}（{from}、以前）", format_of_game: "フォーマット: {name}（{revision}）",
    deck_legal: "{format}使用できます: {n}枚。", deck_in_format: "{name}で", deck_problems: "問題 {n}件:",
    line: "{n}行目", deck_code: "デッキコード", deck_not_json: "デッキがJSONではありません",
    clock_match: "持ち時間と対戦", clock: "持ち時間", no_clock: "なし", clock_custom: "その他…",
    clock_initial: "各自の時間（秒）", clock_increment: "1手ごとの加算（秒）", match: "対戦", match_1: "1ゲーム",
    match_3: "3本勝負", match_5: "5本勝負", clocks: "持ち時間", time_out: "時間切れ",
    claim: "勝ちを申告: {name}の時間切れ", match_score: "{best_of}本勝負の第{game}ゲーム: {a} {wa} – {wb} {b}",
    match_won: "{name}が対戦に勝ちました", next_game: "次のゲーム: このゲームに負けたあなたが先攻を決めます。",
    next_first: "{name}が先攻", next_wait: "このゲームに負けた{name}が次のゲームの先攻を決めます。次のゲームが配られると、このページはそちらへ移ります。",
    download: "このゲームをダウンロード", final_moves: "行動は取り消せません。",
    download_hot: "棋譜（.afr）、リプレイ本文、シナリオ",
    download_seat: "あなたの棋譜（.afr）。ゲーム終了後はシード入りの完全な棋譜",
    download_ledger: "審判の台帳から書いたあなたの棋譜（.afr）。配った端末ではゲーム終了後に完全な棋譜",
    record: "棋譜", record_line: "{n}行目", record_refused: "ここで拒否",
    replay_drop: "棋譜（.afr）かリプレイのファイルをここにドロップするか、選ぶか、下に貼り付けてください。",
    replay_hint: "棋譜（.afr、「このゲームをダウンロード」が書くもの）、リプレイ本文（{\"game\" または \"state\", \"actions\"}）、referee expand FILE の出力（シナリオ。失敗した行動に印つき）を読み込みます。",
    game_over_note: "ゲームは終了しました：{result}。", resumed: "このブラウザに保存されたゲームを再開しました。",
    first: "最初", previous: "前へ", next: "次へ", last: "最後", language: "言語",
    discard_pick: "ターン終了：手札から捨てるカードを{n}枚選んでください（{k}枚選択中）。下の候補でもかまいません。",
    discard_these: "{cards}を捨てる", discard_choose: "手札からあと{n}枚選んでください",
    card_text: "カード", opponent_hand: "{name}の手札", your_hand: "{name}の手札", board: "テーブル",
    opponent: "対戦相手", opp_person: "人（ホットシート、または相手の端末）", opp_computer: "コンピューター",
    bot: "コンピューターの種類", strength: "強さ", strength_quick: "速い（1手0.1秒）",
    strength_normal: "普通（1手0.5秒）", strength_strong: "強い（1手2秒）",
    computer_seat: "コンピューターの席", computer_name: "コンピューター",
    your_link: "あなたのリンク（この席。どの端末からでも続けられます）",
    caught_up: "ゲームが先に進んでいました（別の端末）。最新の局面です。",
    watching: "観戦中：両プレイヤーが見られるものだけを表示します。ここからは行動できません。",
    watch_delay: "表示中の局面は、実際の対局より{n}手遅れています。",
    thinking: "{name}（コンピューター）が考えています…", unreachable: "レフェリーに接続できません。再試行しています…",
    ledger_down: "レフェリーの台帳に接続できません。再試行しています…",
    not_found_game: "このレフェリーにそのゲームはありません（期限切れか、別の場所で配られたゲーム）。",
    vs_computer: "コンピューターと対戦：{bot}、{strength}。", seen_hint: "局面から読み取った行動",
    links: "このゲームのリンク", follow_note: "このページはゲームの進行を自動で追います。",
    copied: "コピーしました。", select_copy: "選択しました。コピーしてください（Ctrl+C、スマートフォンでは長押し）。",
    deal_hint_private: "非公開モード：各プレイヤーが自分の席とリンクを持ち、自分の端末で遊びます。観戦用のリンクもあります。",
    tab_event: "大会", ev_new: "新しい大会", ev_names: "参加者（1行に1人）", ev_name: "大会名",
    ev_best_of: "何本勝負", ev_swiss: "スイスラウンド数", ev_cut: "決勝トーナメント", ev_no_cut: "なし", ev_start: "大会を始める",
    ev_pair: "次のラウンドを組む", ev_check: "大会を検査", ev_download: "大会をダウンロード（JSON）",
    ev_load: "大会を読み込む", ev_standings: "順位", ev_rounds: "ラウンド", ev_none: "大会はまだありません。名前の一覧から始めるか、読み込んでください。",
    ev_round: "第{n}ラウンド", ev_cut_round: "第{n}ラウンド（決勝トーナメント）", ev_table: "卓", ev_players: "対戦", ev_result: "結果",
    ev_bye: "不戦勝", ev_no_result: "—", ev_forfeits: "{name} の棄権", ev_result_of: "{n}卓の結果：{a} – {b}",
    ev_drops: "{name} が退出", ev_rank: "順位", ev_player: "参加者", ev_points: "勝ち点", ev_record: "戦績",
    ev_omw: "OMW", ev_gw: "GW", ev_ogw: "OGW", ev_rating: "レーティング", ev_dropped: "退出", ev_dropped_yes: "退出",
    ev_winner: "優勝：{name}", ev_swiss_ended: "スイス終了：再戦なしの組み合わせがもうありません。",
    ev_paired: "第{n}ラウンドを組みました。", ev_ok: "大会はすべての検査に通りました（規則15）。",
    ev_names_repeated: "名前が重複しています：{names}", ev_names_long: "64文字を超える名前があります：{names}",
    ev_names_few: "大会には2人以上が必要です。", ev_bad_file: "このファイルは大会の文書ではありません：{detail}",
    ev_round_of: "第{n}ラウンド", ev_table_of: "{n}卓", ev_summary: "{name}：{players}人、{best_of}本勝負、シード {seed}",
  },
};

/** The page's text `key` in `lang`, with {names} filled in. */
export function t(lang, key, values = {}) {
  const table = UI[lang] || UI.en;
  let text = key.includes(".") ? key.split(".").reduce((o, k) => (o || {})[k], table) : table[key];
  if (text === undefined) text = UI.en[key] ?? key;
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (values[k] ?? `{${k}}`));
}

const EVENTS = {
  en: {
    game_started: "The game starts; {player} goes first.",
    mulligan: "{player} mulligans and draws {cards}.", keep: "{player} keeps.",
    turn_started: "Turn {turn}: {player}'s turn.",
    draw: "{player} draws {cards}.", mill: "{cards} card(s) of {player}'s file go to the trash.",
    case_played: "{player} plays a case face down: {case}.",
    fairy_played: "{player} plays {fairy}.", evidence_played: "{player} plays {evidence} on {case}.",
    dispatch: "{player} dispatches {fairy} to {case}.", redispatch: "{player} moves {fairy} to {case}.",
    recall: "{player} recalls {fairy}.", paid: "{player} pays with {n} case(s).",
    window_opened: "{responder} may respond to {action}.", window_closed: "The window closes{negated}.",
    counter: "{player} counters with {card}.", negated: "{action} is negated by {by}.",
    spell: "{player} casts {card}.", ability: "{player} uses {card}.",
    power: "{card} gets {amount} power.", investigation_power: "The investigation gets {amount}.",
    investigation: "{player} investigates {case}: power {power} vs level {level}, {outcome}.",
    solved: "{case} is solved by {by}: {hit} card(s) hit.",
    reveal: "{case} turns face up: {card}.", ready: "{case} is ready again.",
    bounce: "{fairy} returns to {to}'s hand.", trash: "{card} goes to {player}'s trash.",
    recover: "{player} takes {card} back from the trash.", discard: "{player} discards {cards}.",
    discard_owed: "{player} must discard {count}.", skipped: "Skipped ({reason}).",
    game_over: "Game over: {winner} wins ({reason}).", moved: "{player} moves.", moved_on: "{player} moves on: {step}.", skip_case: "{player} plays no case this turn.",
    case_played_hidden: "{player} plays a case face down.",
    jumped: "Actions {first} to {last} applied at once (step through them for their events).",
    before_join: "Actions {first} to {last} were made before this page opened the game (the position shows them).",
  },
  ja: {
    game_started: "ゲーム開始。先攻は{player}。",
    mulligan: "{player}はマリガンして{cards}枚引いた。", keep: "{player}はキープ。",
    turn_started: "ターン{turn}：{player}のターン。",
    draw: "{player}は{cards}枚引いた。", mill: "{player}のファイルから{cards}枚がトラッシュへ。",
    case_played: "{player}は事件を裏向きで出した：{case}。",
    fairy_played: "{player}は{fairy}を出した。", evidence_played: "{player}は{evidence}を{case}に出した。",
    dispatch: "{player}は{fairy}を{case}に派遣。", redispatch: "{player}は{fairy}を{case}に派遣しなおした。",
    recall: "{player}は{fairy}を呼び戻した。", paid: "{player}は事件{n}枚で支払った。",
    window_opened: "{responder}は{action}に対応できる。", window_closed: "対応ウィンドウが閉じた{negated}。",
    counter: "{player}は{card}で対応。", negated: "{action}は{by}で無効になった。",
    spell: "{player}は{card}を使った。", ability: "{player}は{card}の能力を使った。",
    power: "{card}のパワー{amount}。", investigation_power: "捜査のパワー{amount}。",
    investigation: "{player}が{case}を捜査：パワー{power}対レベル{level}、{outcome}。",
    solved: "{case}は{by}が解決：{hit}枚ヒット。",
    reveal: "{case}が表向きに：{card}。", ready: "{case}のアクションが解除された。",
    bounce: "{fairy}は{to}の手札に戻った。", trash: "{card}は{player}のトラッシュへ。",
    recover: "{player}はトラッシュから{card}を手札に戻した。", discard: "{player}は{cards}を捨てた。",
    discard_owed: "{player}は{count}枚捨てる必要がある。", skipped: "スキップ（{reason}）。",
    game_over: "ゲーム終了：{winner}の勝ち（{reason}）。", moved: "{player}の行動。", moved_on: "{player}の行動：{step}へ。", skip_case: "{player}はこのターン事件を出さない。",
    case_played_hidden: "{player}は事件を裏向きで出した。", jumped: "{first}手目から{last}手目までをまとめて進めた（1手ずつ進めると経過が出ます）。",
    before_join: "{first}手目から{last}手目までは、このページがゲームを開く前の行動です（局面に表れています）。",
  },
};
const OUTCOMES = {
  en: { solved: "solved", failed: "failed", continues: "it goes on", abandoned: "abandoned" },
  ja: { solved: "解決", failed: "失敗", continues: "継続", abandoned: "中止" },
};

/**
 * One event in words. `name(iid)` names a card as the viewer may see it,
 * `who(i)` names a player, `kind(type)` names an action type, `known(iid)` says whether the viewer may know it.
 * @param {(iid: string) => boolean} [known]
 */
export function eventText(lang, ev, name, who, actionName, known = (iid) => true) {
  const table = EVENTS[lang] || EVENTS.en;
  // A case played face down that this viewer may not know: said without naming it.
  const hiddenCase = ev.type === "case_played" && typeof ev.case === "string" && !known(ev.case);
  const template = table[hiddenCase ? "case_played_hidden" : ev.type];
  if (!template) return ev.type;
  const v = { ...ev };
  for (const k of ["player", "responder", "by", "to", "winner", "first_player"]) {
    if (typeof ev[k] === "number") v[k] = who(ev[k]);
  }
  // `by` is a player where a case is solved, and a card (an instance id) where an action is negated or
  // an investigation gets power; `target` is a card: never shown as a raw id.
  for (const k of ["by", "target"]) if (typeof ev[k] === "string") v[k] = name(ev[k]);
  if (ev.type === "game_started") v.player = who(ev.first_player);
  for (const k of ["card", "fairy", "case", "evidence"]) {
    if (typeof ev[k] === "string") v[k] = ev.type === "reveal" && k === "card" ? name(null, ev[k]) : name(ev[k]);
  }
  if (Array.isArray(ev.cards)) v.cards = ev.cards.map((c) => name(c)).join(lang === "ja" ? "、" : ", ");
  else if (typeof ev.cards === "number" && ev.type !== "mill" && ev.type !== "mulligan") {
    v.cards = lang === "ja" ? `${ev.cards}枚` : `${ev.cards} card${ev.cards === 1 ? "" : "s"}`; // drawn, not shown to this seat
  }
  if (Array.isArray(ev.cases)) v.n = ev.cases.length;
  if (typeof ev.amount === "number") v.amount = ev.amount >= 0 ? `+${ev.amount}` : `${ev.amount}`;
  if (ev.outcome) v.outcome = (OUTCOMES[lang] || OUTCOMES.en)[ev.outcome] || ev.outcome;
  if (ev.reason) v.reason = t(lang, `reasons.${ev.reason}`);
  if (ev.reason && !(ev.reason in (UI.en.reasons))) v.reason = ev.reason;
  if (typeof ev.action === "string") v.action = actionName(ev.action);
  if (typeof ev.step === "string") v.step = t(lang, `steps.${ev.step}`);
  if (ev.type === "window_closed") v.negated = ev.negated ? (lang === "ja" ? "（無効）" : " (negated)") : "";
  return template.replace(/\{(\w+)\}/g, (_, k) => (v[k] ?? ""));
}

const ACTION_NAMES = {
  en: { play_case: "a case", draw: "a draw", play_fairy: "a fairy", play_evidence: "an evidence",
        dispatch: "a dispatch", redispatch: "a redispatch", recall: "a recall", investigate: "an investigation",
        use_ability: "an ability", cast_spell: "a spell" },
  ja: { play_case: "事件", draw: "ドロー", play_fairy: "妖精", play_evidence: "証拠", dispatch: "派遣",
        redispatch: "派遣しなおし", recall: "呼び戻し", investigate: "捜査", use_ability: "能力", cast_spell: "妖力" },
};

export function actionName(lang, type) {
  return (ACTION_NAMES[lang] || ACTION_NAMES.en)[type] || type;
}
