<?php
// tools/api-dump.php: prints the Swoole API surface the loaded module shows to Reflection, one fact a line:
//   constant NAME = value                      module constants
//   class|final class|interface NAME [extends P] [implements I,J]
//   const C::NAME = value | prop C::$name modifiers [type] | method C::name(params): ret [modifiers]
//   function name(params): ret                 extension functions and Swoole-named library functions
//   alias name = Class                         (names in lower case, as PHP keeps aliases)
// Run under `php -n`. tools/check-signatures.php compares this with tests/signatures/swoole-6.2.2.txt.

function ty(?ReflectionType $t): string { return $t === null ? '' : (string) $t; }

function params(ReflectionFunctionAbstract $f): string {
    $out = [];
    foreach ($f->getParameters() as $p) {
        $s = '';
        $t = ty($p->getType());
        if ($t !== '') $s .= $t . ' ';
        if ($p->isPassedByReference()) $s .= '&';
        if ($p->isVariadic()) $s .= '...';
        $s .= '$' . $p->getName();
        // The default as declared (an internal function's arginfo string), not its value.
        if (preg_match('/\$' . preg_quote($p->getName(), '/') . ' = (.*) \]$/s', (string) $p, $m)) {
            $s .= ' = ' . $m[1];
        } elseif ($p->isOptional() && !$p->isVariadic()) {
            $s .= ' = ?';
        }
        $out[] = $s;
    }
    return implode(', ', $out);
}

function ret(ReflectionFunctionAbstract $f): string {
    $t = $f->hasReturnType() ? $f->getReturnType() : ($f->hasTentativeReturnType() ? $f->getTentativeReturnType() : null);
    return $t === null ? '' : ': ' . ty($t);
}

function val($v): string {
    if (is_array($v)) return '[array ' . count($v) . ']';
    return is_string($v) || is_float($v) ? var_export($v, true) : json_encode($v);
}

$lines = [];
foreach (get_defined_constants(true)['swoole'] ?? [] as $k => $v) $lines[] = "constant $k = " . val($v);
foreach (array_merge(get_declared_classes(), get_declared_interfaces()) as $n) {
    if (!preg_match('/^(Swoole\\\\|swoole_|Co\\\\|Co$|Chan$)/i', $n)) continue;
    $c = new ReflectionClass($n);
    if (strcasecmp($c->getName(), $n) !== 0) { $lines[] = 'alias ' . strtolower($n) . ' = ' . $c->getName(); continue; }
    $mods = [];
    if ($c->isInterface()) {
        $mods[] = 'interface';
    } else {
        if ($c->isFinal()) $mods[] = 'final';
        if ($c->isAbstract()) $mods[] = 'abstract';
        $mods[] = 'class';
    }
    $h = implode(' ', $mods) . ' ' . $n;
    if ($p = $c->getParentClass()) $h .= ' extends ' . $p->getName();
    $ifs = $c->getInterfaceNames();
    sort($ifs);
    if ($ifs) $h .= ' implements ' . implode(',', $ifs);
    $lines[] = $h;
    foreach ($c->getReflectionConstants() as $k) {
        if ($k->getDeclaringClass()->getName() !== $c->getName()) continue;
        $lines[] = "const $n::" . $k->getName() . ' = ' . val($k->getValue());
    }
    foreach ($c->getProperties() as $p) {
        if ($p->getDeclaringClass()->getName() !== $c->getName()) continue;
        $s = "prop $n::\$" . $p->getName() . ' ' . implode(' ', Reflection::getModifierNames($p->getModifiers()));
        if ($p->hasType()) $s .= ' ' . ty($p->getType());
        $lines[] = $s;
    }
    foreach ($c->getMethods() as $m) {
        if ($m->getDeclaringClass()->getName() !== $c->getName()) continue;
        $mods = implode(' ', Reflection::getModifierNames($m->getModifiers()));
        $lines[] = "method $n::" . $m->getName() . '(' . params($m) . ')' . ret($m) . " [$mods]";
    }
}
$fns = [];
foreach ((new ReflectionExtension('swoole'))->getFunctions() as $f) $fns[$f->getName()] = $f;
foreach (get_defined_functions()['user'] as $f) {
    if (preg_match('/^(swoole_|co\\\\|swoole\\\\)/i', $f)) $fns[$f] = new ReflectionFunction($f);
}
foreach ($fns as $f) $lines[] = 'function ' . $f->getName() . '(' . params($f) . ')' . ret($f);
sort($lines);
echo implode("\n", $lines), "\n";
