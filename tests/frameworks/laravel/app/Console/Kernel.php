<?php
// app/Console/Kernel.php: the console kernel (octane:* commands come from Octane's provider).
namespace App\Console;

class Kernel extends \Illuminate\Foundation\Console\Kernel
{
}
