<?php
// app/Exceptions/Handler.php: Laravel's default exception handler (500 pages, logging).
namespace App\Exceptions;

class Handler extends \Illuminate\Foundation\Exceptions\Handler
{
}
