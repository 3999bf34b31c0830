#!/usr/bin/env bash
# synth.sh writes the synthetic streams of this corpus, one per feature of
# the pane emulator (NAME@COLSxROWS.bin). The oracle test feeds each to tmux
# and to panes.Term and compares the screens cell by cell.
set -euo pipefail
cd "$(dirname "$0")"
out() { cat >"synth-$1.bin"; }
E=$'\e'

{ printf 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'   # exactly 40: pending wrap
  printf 'X\r\n'
  printf '%040d' 0; printf '\r\nafter CRLF\r\n'
  printf '%040d' 1; printf '\nLF kept col\r\n'
  printf '%040d' 2; printf '\bB\r\n'
  printf '%039d中' 3; printf '|\r\n'
  printf "${E}[?7l%050dNOWRAP${E}[?7h\r\n" 4
  printf 'tail'
} | out 'wrap@40x10'

{ printf "${E}[5;10Hmid${E}[2Aup${E}[3Bdn${E}[4Cright${E}[20Dleft"
  printf "${E}[2Enext${E}[Fprev${E}[30Gcol30${E}[8dline8${E}[5\`hpa5${E}[99;99Hcorner"
  printf "${E}[1;1f${E}[0Azero${E}[999Bbottom${E}[999Cend${E}[3;3H${E}[5aHPR${E}[2eVPR"
  printf "${E}[10;1H%040d${E}[Aup-from-pending" 0
} | out 'cursor@40x12'

{ for i in $(seq 1 10); do printf "row%02d-abcdefghijklmnopqrstuvwxyz0123456789\r\n" "$i"; done
  printf "${E}[44m${E}[2;5H${E}[K${E}[3;5H${E}[1K${E}[4;5H${E}[2K${E}[5;10H${E}[41m${E}[6X"
  printf "${E}[7;20H${E}[42m${E}[1J${E}[m${E}[9;20H${E}[J"
} | out 'erase@40x12'

{ for i in $(seq 1 8); do printf "row%d-abcdefghijklmnopqrstuvwxyz\r\n" "$i"; done
  printf "${E}[2;3H${E}[4@${E}[3;3H${E}[5P${E}[4;1H${E}[2L${E}[7;1H${E}[1M"
  printf "${E}[3;6r${E}[4;1H${E}[3L${E}[5;1H${E}[9M${E}[r"
  printf "${E}[9;1H${E}[43m${E}[3@${E}[m"
} | out 'insdel@30x10'

{ for i in $(seq 1 12); do printf "line %02d\r\n" "$i"; done
  printf "${E}[3;8r${E}[8;1H\nscrolled in region\n\n${E}[3;1H${E}Mreverse${E}M${E}Mtwice"
  printf "${E}[2S${E}[1T${E}[5;1H${E}Dind${E}Enel${E}[r${E}[12;1H\r\nbottom scroll\r\n"
  printf "${E}[2;5r${E}[5;1Hx\ny\nz${E}[r${E}[1;10r${E}[10;1H\none\ntwo${E}[r${E}[20;1Hend"
} | out 'scroll@30x12'

{ printf "plain ${E}[1mbold${E}[22m ${E}[2mfaint${E}[0m ${E}[3mital${E}[23m ${E}[4munder${E}[24m ${E}[5mblink${E}[25m ${E}[7mrev${E}[27m ${E}[8mhid${E}[28m ${E}[9mstrike${E}[29m\r\n"
  printf "${E}[4:2mdouble${E}[4:3mcurly${E}[4:4mdotted${E}[4:5mdashed${E}[4:0mnone ${E}[21mdbl${E}[m\r\n"
  for i in 0 1 2 3 4 5 6 7; do printf "${E}[3${i}m${i}${E}[4${i}m${i}${E}[9${i}m${i}${E}[10${i}m${i}"; done; printf "${E}[m\r\n"
  for i in 16 52 88 124 160 196 202 226 231 232 244 255; do printf "${E}[38;5;${i}m#${E}[48;5;$((255-i))m@"; done; printf "${E}[m\r\n"
  printf "${E}[38;2;255;128;0mtrue${E}[48;2;0;64;128mcolor${E}[38:2::10:20:30mcolon${E}[48:2:40:50:60mnocs${E}[38:5:99mc256${E}[m\r\n"
  printf "${E}[58;5;196m${E}[4munderc${E}[58:2::1:2:3mrgbul${E}[59mdefault${E}[m\r\n"
  printf "${E}[1;3;4;38;5;10;48;2;1;2;3mmulti${E}[39;49mcolors-reset${E}[mdone\r\n"
  printf "${E}[1;31mA${E}[2mB${E}[22mC${E}[7;41mD${E}[27mE${E}[0;97;100mF${E}[m\r\n"
} | out 'sgr@60x10'

{ printf "a\tb\tc\td\te\r\n"; printf "${E}[3g${E}[5G${E}H${E}[15G${E}H\r\tx\ty\tz\r\n"
  printf "${E}[0g\r\tq\tw\r\n${E}[20G${E}[2Zback${E}[1Ifwd\r\n"; printf "%038d\tT\r\n" 0
} | out 'tabs@40x8'

{ printf "main screen line 1\r\nmain 2${E}[31m red"; printf "${E}[?1049h${E}[HALT SCREEN${E}[5;5Hin alt"
  printf "${E}[?1049lback${E}[m\r\n"
  printf "before47${E}[?47h${E}[2;2Halt47${E}[?47lafter47\r\n"
  printf "${E}[?1047h${E}[3;3Halt1047${E}[?1047l${E}[?1048h${E}[6;1Hmoved${E}[?1048lrestored\r\n"
  printf "${E}[?1049h${E}[2J${E}[Hleft in alt\r\nsecond"
} | out 'altscreen@40x8'

{ printf "${E}(0lqqqqk\r\nx  x\r\nmqqqj${E}(B ascii\r\n"
  printf "${E})0a\x0elqk\x0fb ${E}(0\`afgjklmnopqrstuvwxyz{|}~${E}(B\r\n"
  printf "${E}(0${E}7${E}(Bsaved-ascii ${E}8lqk${E}(B\r\n"
} | out 'charset@40x6'

{ printf "${E}[3;7r${E}[?6h${E}[Horigin-home${E}[10;1Hclamped${E}[2;5Hrel"
  printf "${E}[6n${E}[?6l${E}[Habs-home${E}[r"
} | out 'origin@30x10'

{ printf "x${E}[5bq\r\n中${E}[3b\r\n${E}[31m-${E}[10b${E}[m\r\n"
  printf "${E}[3;5H${E}[1;32m${E}7${E}[m${E}[Hhome${E}8saved-green${E}[m\r\n"
  printf "${E}[6;3H${E}[s${E}[Hx${E}[urestored"
} | out 'rep-save@30x8'

{ printf "bad utf8: \xff\xfe \xc3\x28 \xe2\x82 \xf0\x9f\x98 ok\r\n"
  printf "${E}]2;"; head -c 200000 /dev/zero | tr '\0' 'A'; printf '\a'
  printf "after-long-osc\r\n${E}[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34;35;36;37;38;39;40;41;42;43;44;45;46;47;48;49;50;51;52;53;54;55;56;57;58;59;60;61;62;63;64;65;66;67;68;69;70;71;72;73;74;75;76;77;78;79;80mmany${E}[m\r\n"
  printf "${E}[99999999999999999999Chuge${E}[m\r\n${E}[2J${E}[H"
  printf "lone ${E} esc ${E}[ incomplete${E}P1;2|data${E}\\ dcs ${E}_apc${E}\\ ${E}^pm${E}\\ end\r\n"
  printf "C1: \xc2\x9b31mnot-csi\r\n"
} | out 'garbage@40x8'

{ printf "${E}]8;;https://example.com${E}\\link text${E}]8;;${E}\\ plain\r\n"
  printf "${E}]8;id=1;http://x${E}\\${E}[4mstyled link${E}[m${E}]8;;${E}\\\r\n"
  printf "${E}]0;a title${E}\\${E}]2;other${E}\\${E}]1;icon\atitles\r\n"
} | out 'osc@40x5'

# 0x9C is ST in 8-bit mode but a UTF-8 continuation byte: in titles
# (claude's "✳", gemini's "✦ Working…", a curly quote) and other strings
# it is data, and inside a sequence tmux ignores every byte >= 0x80.
{ printf "A${E}]0;\xe2\x9c\xb3 Claude Code\aB${E}]2;\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x9c\x93\xe2\x9c\x94\xe2\x9c\x97${E}\\\\C\r\n"
  printf "D${E}]0;\xe2\x9c\xa6 Working\xe2\x80\xa6\x18E${E}]2;ab\x9cc\x1aF${E}]2;x${E}yG\r\n"
  printf "H${E}_apc \xe2\x9c\xb3\ax${E}\\\\I${E}Pq\xe2\x9c\xb3${E}\\\\J${E}^pm\x9c${E}\\\\K${E}Xsos\xc2\x9c${E}\\\\L\r\n"
  printf "M${E}[1\xe2\x9c\xb3;31mN${E}[m${E}\xe2\x9c\xb3PQ${E}(\xc2\x9c0qR${E}(BS${E}P1\xe2\x9c\xb3;2qT${E}\\\\U\r\n"
  printf "V${E}P\nW${E}\\\\X${E}P${E}[32mY${E}[mZ\r\n"
  printf "a${E}Pqx${E}[31mb${E}\\\\c${E}Pqx\x18\x07d${E}${E}\\\\e${E}\\\\f${E}P1\x18g\r\n"
} | out 'osc-utf8@40x6'

# Controls inside sequences execute without disturbing them; a sequence
# with a parameter after an intermediate, or a private marker after a
# parameter, is ignored up to its final byte (tmux's csi_ignore).
{ printf "A${E}[1?5mB${E}[1\$5mC${E}[\$?mD${E}\n7E${E}8F${E}[?\n25lG${E}[2\x18H\r\n"
  printf "IJ${E}[\x07DK${E}[3\x08;1HL${E}[?7\x0bl%032dM${E}[?7h\r\n" 0
} | out 'csi-controls@30x6'

{ printf "abcdefghij\r\n0123456789${E}[1;3H${E}[4hXY${E}[4l${E}[2;2H${E}[4h中${E}[4l\r\n"
  printf "e\xcc\x81\xcc\x82 x\xe2\x83\x9d a\xcc\x88b 中\xcc\x81| \xcc\x81start\r\n"
  printf "%029d中z\r\n" 0; printf "ab中cd${E}[1;3Hx${E}[4;4Hy${E}[4;2H${E}[2P\r\n"
  printf "中文中文中文${E}[5;2H${E}[3X${E}[5;8H${E}[K\r\n"
} | out 'wide-insert@30x8'

{ printf "${E}[?1h${E}=${E}[?2004h${E}[?1002h${E}[?1006h${E}[?2026h${E}[?25l${E}[>1u${E}[?2026l"
  printf "modes set\r\n${E}[?1l${E}>${E}[?2004l${E}[?1002l${E}[?1006l${E}[?25hmodes reset${E}[<u"
  printf "${E}[2;1H${E}[?7lnowrap%040d" 0; printf "${E}[?7h${E}[4;1H${E}#8${E}[3;3Hdecaln"
} | out 'modes@30x6'

{ for i in $(seq 1 30); do printf "log line %03d ${E}[3$((i%8))mcoloured ${E}[1mbold${E}[m tail\r\n" "$i"; done
  printf "${E}[2J${E}[Hafter clear\r\n"; for i in $(seq 1 5); do printf "more %d\r\n" "$i"; done
} | out 'scrollout@40x10'

{ printf 'vs16: \xe2\x9d\xa4\xef\xb8\x8f| \xe2\x98\x80\xef\xb8\x8f| \xe2\x9c\x94\xef\xb8\x8f|\r\n'
  printf 'zwj: \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7|\r\n'
  printf 'skin: \xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd|\r\n'
  printf 'flag: \xf0\x9f\x87\xaf\xf0\x9f\x87\xb5|\r\n'
  printf 'misc: \xc2\xa0|\xc2\xad|\xe2\x80\x8b|\xe3\x80\x80|\xef\xbc\xa1|\xe2\x94\x80\xe2\x95\x90|\xe2\x80\xa6|\xce\xb1\xce\xb2|\xd0\x96|\r\n'
  printf 'hangul jamo: \xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8|\r\n'
  printf 'thai: \xe0\xb8\x81\xe0\xb8\xb3 \xe0\xb8\x99\xe0\xb9\x89\xe0\xb8\xb3|\r\n'
  printf 'arrows \xe2\x86\x92\xe2\x87\x92 box \xe2\x96\x88\xe2\x96\x91 math \xe2\x88\x91\xe2\x88\x9e\r\n'
  printf 'emoji row: \xf0\x9f\x9a\x80\xf0\x9f\x94\xa5\xf0\x9f\x92\xa1\xe2\x9c\xa8\xe2\xad\x90\xf0\x9f\x8e\x89|\r\n'
} | out 'unicode@40x12'
